/**
 * Reading what the server answers: a method's result decoded for the connection's revision, or a value decoded as one
 * named domain type. Either fails with a ProtocolViolation that names what was invalid.
 */
import { Codec, type Mcp, type Method, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import { ProtocolViolation } from "../../Errors.js"

/** A method's result decoded for `revision` (or a newer handshake revision that reads it). */
export const decodeResult = <M extends keyof Method.ClientRequests>(
  method: M,
  revision: Revision.Revision,
  result: Record<string, unknown>
): Effect.Effect<Method.ClientRequests[M]["result"], ProtocolViolation> => {
  const decoded = Codec.decodeResultLenient(method, revision, result)
  return Either.isRight(decoded)
    ? Effect.succeed(decoded.right)
    : Effect.fail(
      new ProtocolViolation({ reason: `the server's ${method} result is invalid: ${Codec.describe(decoded.left)}` })
    )
}

/** The fields of a result that only the 2026-07-28 wire has: what `withoutEraFields` takes away. */
const eraFields = ["resultType", "ttlMs", "cacheScope"] as const

/** The `_meta` key of the server's identity on every 2026-07-28 result. */
const serverInfoKey = "io.modelcontextprotocol/serverInfo"

/**
 * A result as a user is handed it: without what only the 2026-07-28 wire carries (`resultType`, the cache hints
 * `ttlMs`/`cacheScope`, which the client's list cache has read already, and the server's identity in `_meta`), so
 * that a result reads the same in every era. A result without them is returned as it is.
 */
export const withoutEraFields = <A>(result: A): A => {
  const r = result as Record<string, unknown>
  const meta = r._meta as Record<string, unknown> | undefined
  const hasServerInfo = meta !== undefined && Object.hasOwn(meta, serverInfoKey)
  if (!hasServerInfo && !eraFields.some((key) => Object.hasOwn(r, key))) return result
  const { cacheScope: _c, resultType: _r, ttlMs: _t, _meta: _m, ...rest } = r
  if (meta === undefined) return rest as A
  const { [serverInfoKey]: _s, ...ownMeta } = meta
  return (Object.keys(ownMeta).length === 0 ? rest : { ...rest, _meta: ownMeta }) as A
}

/** The domain's types, by their name in the official schema. */
type DomainTypes = typeof Mcp.definitions

/** A value decoded as the domain type named `type`, as `revision` defines it (`Codec.decode`, typed by the name). */
export const decodeType = <K extends keyof DomainTypes>(
  type: K,
  revision: Revision.Revision | "domain",
  raw: unknown
): Either.Either<Schema.Schema.Type<DomainTypes[K]>, ParseResult.ParseError> =>
  Codec.decode(revision, type, raw) as Either.Either<Schema.Schema.Type<DomainTypes[K]>, ParseResult.ParseError>

/** A value decoded as the domain type named `type` (as `revision` defines it); `what` names it in the failure. */
export const decodeAs = <K extends keyof DomainTypes>(
  type: K,
  revision: Revision.Revision | "domain",
  raw: unknown,
  what: string
): Effect.Effect<Schema.Schema.Type<DomainTypes[K]>, ProtocolViolation> => {
  const decoded = decodeType(type, revision, raw)
  return Either.isRight(decoded)
    ? Effect.succeed(decoded.right)
    : Effect.fail(
      new ProtocolViolation({ reason: `the server's ${what} is invalid: ${Codec.describe(decoded.left)}` })
    )
}
