/**
 * JSON values as Effect Schemas (the recursive `JSONValue`, `JSONObject` and `JSONArray` of the official MCP
 * schema), and the reads every layer makes of a parsed value before any schema: is it an object, how deep does it
 * nest.
 */
import * as Schema from "effect/Schema"
import * as Formats from "./internal/formats.js"

/** A JSON value as MCP's `JSONValue` defines it: strings, integers, booleans, arrays and objects. */
export type JsonValue = string | number | boolean | JsonArray | JsonObject
/** A JSON array. */
export interface JsonArray extends ReadonlyArray<JsonValue> {}
/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/** Schema of MCP's `JSONValue` (the official definition has integers but no fractions and no null). */
export const JsonValue: Schema.Schema<JsonValue> = Schema.Union(
  Schema.String,
  Schema.Int,
  Schema.Boolean,
  Schema.Array(Schema.suspend((): Schema.Schema<JsonValue> => JsonValue)),
  Schema.Record({ key: Schema.String, value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue) })
).annotations({ identifier: "JSONValue", arbitrary: () => (fc) => Formats.mcpJsonValue(fc) })

/** Schema of a JSON array. */
export const JsonArray: Schema.Schema<JsonArray> = Schema.Array(JsonValue).annotations({
  identifier: "JSONArray",
  arbitrary: () => (fc) => Formats.mcpJsonArray(fc)
})

/** Schema of a JSON object. */
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: JsonValue })
  .annotations({ identifier: "JSONObject", arbitrary: () => (fc) => Formats.mcpJsonObject(fc) })

/** Whether a value is a plain object (not null, not an array): the one check every layer makes of a parsed value. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A value as a plain object: itself when it is one, else an empty object. */
export const record = (u: unknown): Record<string, unknown> => (isRecord(u) ? u : {})

/**
 * Whether a parsed JSON value (or any plain value) nests arrays and objects more than `max` levels deep; a scalar
 * is at depth 0. It recurses at most `max + 1` levels, so a peer's value of any depth (or a cycle) is safe to ask
 * about.
 */
export const exceedsDepth = (value: unknown, max: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (max <= 0) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (exceedsDepth(value[i], max - 1)) return true
    return false
  }
  for (const key in value) if (exceedsDepth((value as Record<string, unknown>)[key], max - 1)) return true
  return false
}
