/**
 * Authentication of every request: the hook's type, its refusal, the `Authorization: Bearer` hook, and the 401/403
 * answer with its RFC 6750 `WWW-Authenticate` challenge (naming the RFC 9728 metadata when it is served); a hook that
 * cannot check a token at all (its authorization server is unreachable or answers garbage) gets 503.
 */
import type { Transport } from "@effect-mcp/core"
import { type JsonRpc, McpError } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Reply, RequestHead } from "./exchange.js"
import * as Replies from "./reply.js"

/** Why a request was refused authentication (401, or 403 for `insufficient_scope`). */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{
  /** A human-readable reason, sent as `error_description`. */
  readonly reason: string
  /** The RFC 6750 error code (default `invalid_token`). */
  readonly error?: "invalid_request" | "invalid_token" | "insufficient_scope"
  /** The scope the request needs, when it lacks one. */
  readonly scope?: string
}> {}

/**
 * The token could not be checked, through no fault of the token: the authorization server's metadata, keys or
 * introspection endpoint could not be reached or answered something unusable (answered 503, not 401: RFC 6750's
 * errors all blame the request, and a client told `invalid_token` would throw away a good token).
 */
export class AuthUnavailable extends Data.TaggedError("AuthUnavailable")<{
  /** What could not be reached or read (never a token). */
  readonly reason: string
}> {}

/** Authenticates one HTTP request: the verified identity, `undefined` for an anonymous request, or a refusal. */
export type Authenticate = (
  request: RequestHead
) => Effect.Effect<Transport.AuthInfo | undefined, Unauthorized | AuthUnavailable>

/** An authentication hook for `Authorization: Bearer <token>` (requests without a token are refused). */
export const bearer =
  (verify: (token: string) => Effect.Effect<Transport.AuthInfo, Unauthorized | AuthUnavailable>): Authenticate =>
  (request) => {
    const header = request.headers["authorization"]
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    return match === null
      ? Effect.fail(new Unauthorized({ reason: "A bearer token is required", error: "invalid_request" }))
      : verify(match[1]!)
  }

/**
 * The answer to a refused request: 401 (403 for `insufficient_scope`) with its `WWW-Authenticate` challenge, and a
 * JSON-RPC error (-32001) with the request's id when it was read.
 */
export const challenge = (
  refusal: Unauthorized,
  metadataUrl: string | undefined,
  id: JsonRpc.RequestId | null = null
): Reply => {
  const error = refusal.error ?? "invalid_token"
  const parts = [
    `error="${error}"`,
    `error_description="${refusal.reason.replace(/["\\]/g, "")}"`,
    ...(refusal.scope === undefined ? [] : [`scope="${refusal.scope}"`]),
    ...(metadataUrl === undefined ? [] : [`resource_metadata="${metadataUrl}"`])
  ]
  return Replies.error(error === "insufficient_scope" ? 403 : 401, McpError.unauthorized(refusal.reason), {
    "www-authenticate": `Bearer ${parts.join(", ")}`
  }, id)
}

/** The answer to a request whose token could not be checked: 503, retry after `retryAfterSeconds`. */
export const unavailable = (failure: AuthUnavailable, retryAfterSeconds = 5): Reply =>
  Replies.error(503, McpError.serverError(`Service unavailable: ${failure.reason}`), {
    "retry-after": String(retryAfterSeconds)
  })
