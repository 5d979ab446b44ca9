/**
 * Per-revision encoders and decoders. Decoding with revision R accepts exactly what R's schema.json
 * describes (open objects stay open); encoding a domain value for R emits only what R allows
 * (fields R lacks are dropped; a value R cannot express at all fails with a `ParseError`).
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ParseOptions } from "effect/SchemaAST"
import * as Domain from "./generated/Domain.js"
import { byRevision } from "./generated/index.js"
import { projector } from "./internal/project.js"
import * as Json from "./Json.js"
import * as Method from "./Method.js"
import type * as Revision from "./Revision.js"

type AnySchema = Schema.Schema<unknown, unknown, never>
type Decoder = (u: unknown) => Either.Either<unknown, ParseResult.ParseError>

/** The recursive JSON types are hand-written (Json.ts); every revision that names them means these. */
const jsonTypes: Readonly<Record<string, unknown>> = {
  JSONValue: Json.JsonValue,
  JSONObject: Json.JsonObject,
  JSONArray: Json.JsonArray
}

const lookup = (revision: Revision.Revision | "domain", type: string): AnySchema | undefined => {
  const defs: Readonly<Record<string, unknown>> = revision === "domain" ? Domain.definitions : byRevision[revision]
  return (defs[type] ?? jsonTypes[type]) as AnySchema | undefined
}

/** The schema of a type as one revision defines it (or the domain's), if that revision has it. */
export const schemaOf = (revision: Revision.Revision | "domain", type: string): AnySchema | undefined =>
  lookup(revision, type)

/** Unknown keys pass through; the first error is reported (enough to name the path, and faster). */
const options: ParseOptions = { errors: "first", onExcessProperty: "preserve" }

const decoders = new Map<string, Decoder>()
const encoders = new Map<string, Decoder>()
const cached = (cache: Map<string, Decoder>, key: string, make: () => Decoder): Decoder => {
  let f = cache.get(key)
  if (f === undefined) {
    f = make()
    cache.set(key, f)
  }
  return f
}

const missing = (revision: string, type: string): Decoder => (u) =>
  Either.left(
    new ParseResult.ParseError({
      issue: new ParseResult.Type(Schema.Never.ast, u, `${type} does not exist in revision ${revision}`)
    })
  )

/** A decoder of `type` as `revision` defines it. */
export const decoder = (revision: Revision.Revision | "domain", type: string): Decoder =>
  cached(decoders, `${revision} ${type}`, () => {
    const schema = lookup(revision, type)
    if (schema === undefined) return missing(revision, type)
    // Decoding never changes a valid value (the only transformations are foreign keys, kept as they are).
    const valid = Schema.is(Schema.typeSchema(schema))
    const slow = Schema.decodeUnknownEither(schema, options)
    return (u) => (valid(u) ? Either.right(u) : slow(u))
  })

/** An encoder of a domain value of `type` into what `revision` allows. */
export const encoder = (revision: Revision.Revision | "domain", type: string): Decoder =>
  cached(encoders, `${revision} ${type}`, () => {
    const schema = lookup(revision, type)
    if (schema === undefined) return missing(revision, type)
    const valid = Schema.is(Schema.typeSchema(schema))
    const project = projector(schema.ast)
    const slow = Schema.encodeUnknownEither(schema, options)
    return (u) => (valid(u) ? Either.right(project(u)) : slow(u))
  })

/** Decodes `type` as `revision` defines it. */
export const decode = (revision: Revision.Revision | "domain", type: string, u: unknown) => decoder(revision, type)(u)

/** Encodes a domain value of `type` for `revision`. */
export const encode = (revision: Revision.Revision | "domain", type: string, value: unknown) =>
  encoder(revision, type)(value)

const noParams = Either.right(undefined)

/** Decodes a method's params for a revision (absent params decode to undefined where allowed). */
export const decodeParams = (
  method: string,
  revision: Revision.Revision,
  params: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const shape = Method.shape(method, revision)
  if (shape === undefined) return missing(revision, method)(params)
  if (shape.params === null) return noParams
  if (params === undefined && !shape.paramsRequired) return noParams
  return decoder(revision, shape.params)(params)
}

/** Encodes a method's params for a revision. */
export const encodeParams = (
  method: string,
  revision: Revision.Revision,
  params: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const shape = Method.shape(method, revision)
  if (shape === undefined) return missing(revision, method)(params)
  if (shape.params === null || (params === undefined && !shape.paramsRequired)) return noParams
  return encoder(revision, shape.params)(params)
}

const resultTypeOf = (value: unknown): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>).resultType : undefined

const resultSchemaName = (method: string, revision: Revision.Revision, value: unknown): string | undefined => {
  const rt = resultTypeOf(value)
  if (rt === "input_required" && lookup(revision, "InputRequiredResult")) return "InputRequiredResult"
  return Method.shape(method, revision)?.result
}

/** Decodes a method's result for a revision (an `input_required` result decodes as `InputRequiredResult`). */
export const decodeResult = (
  method: string,
  revision: Revision.Revision,
  result: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const name = resultSchemaName(method, revision, result)
  return name === undefined ? missing(revision, method)(result) : decoder(revision, name)(result)
}

/** Encodes a method's result for a revision. */
export const encodeResult = (
  method: string,
  revision: Revision.Revision,
  result: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const name = resultSchemaName(method, revision, result)
  return name === undefined ? missing(revision, method)(result) : encoder(revision, name)(result)
}

/** A readable one-line description of a parse error, naming the path. */
export const describe = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  return issues
    .map((i) => (i.path.length > 0 ? `${i.path.map((p) => String(p)).join(".")}: ${i.message}` : i.message))
    .join("; ")
}
