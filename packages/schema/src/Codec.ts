/**
 * Per-revision encoders and decoders. Decoding with revision R accepts exactly what R's schema.json
 * describes (open objects stay open); encoding a domain value for R emits only what R allows
 * (fields R lacks are dropped; a value R cannot express at all fails with a `ParseError`).
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Domain from "./generated/Domain.js"
import { byRevision } from "./generated/index.js"
import { guard } from "./internal/guard.js"
import { preview } from "./internal/preview.js"
import { projector } from "./internal/project.js"
import * as Json from "./Json.js"
import * as Method from "./Method.js"
import * as Revision from "./Revision.js"

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
const options: AST.ParseOptions = { errors: "first", onExcessProperty: "preserve" }

/** Compiled codecs, by revision then type (two map lookups, no key to build per call). */
const decoders = new Map<string, Map<string, Decoder>>()
const encoders = new Map<string, Map<string, Decoder>>()
const cached = (cache: Map<string, Map<string, Decoder>>, revision: string, type: string, make: () => Decoder) => {
  let byType = cache.get(revision)
  if (byType === undefined) {
    byType = new Map()
    cache.set(revision, byType)
  }
  let f = byType.get(type)
  if (f === undefined) {
    f = make()
    byType.set(type, f)
  }
  return f
}

const missing = (revision: string, type: string): Decoder => (u) =>
  Either.left(
    new ParseResult.ParseError({
      issue: new ParseResult.Type(Schema.Never.ast, u, `${type} does not exist in revision ${revision}`)
    })
  )

/**
 * The error for a value that broke the decoder itself instead of failing it: nested deeper than the stack allows,
 * or an object whose `toString` is not a function where a union looks a tag up by it.
 */
export const unreadable = (u: unknown, defect: unknown): ParseResult.ParseError =>
  new ParseResult.ParseError({
    issue: new ParseResult.Type(
      Schema.Never.ast,
      u,
      defect instanceof RangeError ? "the value is nested too deeply" : "the value could not be read"
    )
  })

/** A decoder (or encoder) that fails, instead of throwing, on a value that breaks it (see {@link unreadable}). */
export const safely = <A>(
  f: (u: unknown) => Either.Either<A, ParseResult.ParseError>
): (u: unknown) => Either.Either<A, ParseResult.ParseError> =>
(u) => {
  try {
    return f(u)
  } catch (defect) {
    return Either.left(unreadable(u, defect))
  }
}

/** A decoder of `type` as `revision` defines it. */
export const decoder = (revision: Revision.Revision | "domain", type: string): Decoder =>
  cached(decoders, revision, type, () => {
    const schema = lookup(revision, type)
    if (schema === undefined) return missing(revision, type)
    // Decoding never changes a valid value (the only transformations are foreign keys, kept as they are).
    const valid = guard(AST.typeAST(schema.ast))
    const slow = Schema.decodeUnknownEither(schema, options)
    return safely((u) => (valid(u) ? Either.right(u) : slow(u)))
  })

/** An encoder of a domain value of `type` into what `revision` allows. */
export const encoder = (revision: Revision.Revision | "domain", type: string): Decoder =>
  cached(encoders, revision, type, () => {
    const schema = lookup(revision, type)
    if (schema === undefined) return missing(revision, type)
    const valid = guard(AST.typeAST(schema.ast))
    const project = projector(schema.ast)
    const slow = Schema.encodeUnknownEither(schema, options)
    return safely((u) => (valid(u) ? Either.right(project(u)) : slow(u)))
  })

/** Decodes `type` as `revision` defines it. */
export const decode = (revision: Revision.Revision | "domain", type: string, u: unknown) => decoder(revision, type)(u)

/** The domain type named `K`: what any revision's type of that name decodes to (the domain is their superset). */
export type TypeOf<K extends keyof typeof Domain.definitions> = Schema.Schema.Type<(typeof Domain.definitions)[K]>

/** Decodes `type` as `revision` defines it, typed by the type's name ({@link decode} typed). */
export const decodeAs = <K extends keyof typeof Domain.definitions>(
  revision: Revision.Revision | "domain",
  type: K,
  u: unknown
): Either.Either<TypeOf<K>, ParseResult.ParseError> =>
  decoder(revision, type)(u) as Either.Either<TypeOf<K>, ParseResult.ParseError>

/** Encodes a domain value of `type` for `revision`. */
export const encode = (revision: Revision.Revision | "domain", type: string, value: unknown) =>
  encoder(revision, type)(value)

const noParams = Either.right(undefined)

/** Runs a params codec picked for the method's params type (absent params pass as undefined where allowed). */
const withParams = (pick: typeof decoder) =>
(
  method: string,
  revision: Revision.Revision,
  params: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const shape = Method.shape(method, revision)
  if (shape === undefined) return missing(revision, method)(params)
  if (shape.params === null || (params === undefined && !shape.paramsRequired)) return noParams
  return pick(revision, shape.params)(params)
}

/** Decodes a method's params for a revision (absent params decode to undefined where allowed). */
export const decodeParams = withParams(decoder)

/** Encodes a method's params for a revision. */
export const encodeParams = withParams(encoder)

const resultSchemaName = (method: string, revision: Revision.Revision, value: unknown): string | undefined => {
  const rt = Json.record(value).resultType
  if (rt === "input_required" && lookup(revision, "InputRequiredResult")) return "InputRequiredResult"
  return Method.shape(method, revision)?.result
}

/**
 * A decoder of a method's result. Named by a literal, the method's table entry types the result (`Method.ResultOf`);
 * named by a string known only at run time (a proxy, a test over every method), it is `unknown`.
 */
export interface ResultDecoder {
  <M extends keyof Method.Requests>(
    method: M,
    revision: Revision.Revision,
    result: unknown
  ): Either.Either<Method.ResultOf<M>, ParseResult.ParseError>
  (method: string, revision: Revision.Revision, result: unknown): Either.Either<unknown, ParseResult.ParseError>
}

/**
 * Decodes a method's result for a revision. Under 2026-07-28 an `input_required` result decodes as
 * `InputRequiredResult`, which the table names for `tools/call` only: a caller that may meet one for another method
 * reads `resultType` first.
 */
export const decodeResult: ResultDecoder = (method: string, revision: Revision.Revision, result: unknown) => {
  const name = resultSchemaName(method, revision, result)
  return name === undefined ? missing(revision, method)(result) : decoder(revision, name)(result)
}

/**
 * Runs a decoder for a revision and, when that fails, for each newer handshake revision in turn: a peer that sends
 * types newer than what it negotiated (content a later revision added, a richer elicitation form) is read as the
 * first revision that defines them. Fails with the negotiated revision's error when none accepts the value.
 */
const leniently = (
  decode: (method: string, revision: Revision.Revision, u: unknown) => Either.Either<unknown, ParseResult.ParseError>
) =>
(method: string, revision: Revision.Revision, u: unknown): Either.Either<unknown, ParseResult.ParseError> => {
  const strict = decode(method, revision, u)
  if (Either.isRight(strict) || revision >= Revision.latestHandshake) return strict
  for (const newer of Revision.handshake) {
    if (newer <= revision || Method.shape(method, newer) === undefined) continue
    const decoded = decode(method, newer, u)
    if (Either.isRight(decoded)) return decoded
  }
  return strict
}

/** Decodes a method's params for a handshake revision, or else for the first newer handshake revision that reads them. */
export const decodeParamsLenient = leniently(decodeParams)

/**
 * Decodes a method's result for a handshake revision, or else for the first newer handshake revision that reads it;
 * typed like {@link decodeResult}.
 */
export const decodeResultLenient: ResultDecoder = leniently(decodeResult)

/** Encodes a method's result for a handshake revision, or else for the first newer handshake revision that can: the
 * answer to a request that was only readable as a newer revision (see {@link decodeParamsLenient}). */
export const encodeResultLenient = leniently((method, revision, result) => encodeResult(method, revision, result))

/** Encodes a method's result for a revision. */
export const encodeResult = (
  method: string,
  revision: Revision.Revision,
  result: unknown
): Either.Either<unknown, ParseResult.ParseError> => {
  const name = resultSchemaName(method, revision, result)
  return name === undefined ? missing(revision, method)(result) : encoder(revision, name)(result)
}

/** At most this many issues are described, each in at most this many characters. */
const maxIssues = 8
const maxIssueLength = 240

/**
 * A copy of an issue tree with at most `budget.left` leaves, each actual value replaced by a short preview.
 * Formatting an issue prints its actual value whole and recursively: an unpruned tree of deep garbage (a union
 * failing at each of 1000 levels) formats in seconds into megabytes, and one value nested a few thousand levels
 * deep overflows the stack.
 */
const prune = (issue: ParseResult.ParseIssue, budget: { left: number }): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Pointer":
      return new ParseResult.Pointer(issue.path, preview(issue.actual), prune(issue.issue, budget))
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, preview(issue.actual), issue.kind, prune(issue.issue, budget))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, preview(issue.actual), issue.kind, prune(issue.issue, budget))
    case "Composite": {
      const children: ReadonlyArray<ParseResult.ParseIssue> = Array.isArray(issue.issues)
        ? issue.issues
        : [issue.issues as ParseResult.ParseIssue]
      const kept: Array<ParseResult.ParseIssue> = []
      for (const child of children) {
        if (budget.left <= 0) break
        kept.push(prune(child, budget))
      }
      const [first, ...rest] = kept
      return new ParseResult.Composite(
        issue.ast,
        preview(issue.actual),
        first === undefined ? new ParseResult.Type(issue.ast, preview(issue.actual)) : [first, ...rest]
      )
    }
    case "Type":
      budget.left--
      return new ParseResult.Type(issue.ast, preview(issue.actual), issue.message)
    case "Forbidden":
      budget.left--
      return new ParseResult.Forbidden(issue.ast, preview(issue.actual), issue.message)
    case "Unexpected":
      budget.left--
      return new ParseResult.Unexpected(preview(issue.actual), issue.message)
    case "Missing":
      budget.left--
      return issue
  }
}

const clip = (s: string) => (s.length > maxIssueLength ? `${s.slice(0, maxIssueLength)}…` : s)

/** A readable one-line description of a parse error, naming the path (bounded: at most a few short issues). */
export const describe = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatIssueSync(prune(error.issue, { left: maxIssues }))
  return issues
    .map((i) => clip(i.path.length > 0 ? `${i.path.map((p) => String(p)).join(".")}: ${i.message}` : i.message))
    .join("; ")
}
