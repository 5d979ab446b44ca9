/**
 * JSON values as Effect Schemas: the recursive `JSONValue`, `JSONObject` and `JSONArray` of the
 * official MCP schema.
 */
import * as Schema from "effect/Schema"

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonArray | JsonObject
/** A JSON array. */
export interface JsonArray extends ReadonlyArray<JsonValue> {}
/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/** Schema of any JSON value (finite numbers, no `undefined`). */
export const JsonValue: Schema.Schema<JsonValue> = Schema.Union(
  Schema.String,
  Schema.Finite,
  Schema.Boolean,
  Schema.Null,
  Schema.Array(Schema.suspend((): Schema.Schema<JsonValue> => JsonValue)),
  Schema.Record({ key: Schema.String, value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue) })
).annotations({ identifier: "JSONValue" })

/** Schema of a JSON array. */
export const JsonArray: Schema.Schema<JsonArray> = Schema.Array(JsonValue).annotations({ identifier: "JSONArray" })

/** Schema of a JSON object. */
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: JsonValue })
  .annotations({ identifier: "JSONObject" })
