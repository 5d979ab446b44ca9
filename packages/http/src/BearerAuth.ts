/**
 * Bearer token verification for the MCP endpoint's `authenticate` option: JWT access tokens checked against the
 * issuer's published keys (`jwt`), and opaque tokens checked by RFC 7662 introspection (`introspection`). Each is an
 * `Authenticate` hook for `Authorization: Bearer <token>`; the `*Verifier` forms check a token alone, to compose
 * with `McpHttpServer.bearer` or a hook of your own. A token that does not pass is refused with 401 and an RFC 6750
 * challenge (`invalid_token`, a short reason that never quotes the token); an authorization server that cannot be
 * reached, or answers garbage, makes the request fail with 503 (`AuthUnavailable`) rather than blame the token.
 *
 * @example
 * McpHttpServer.layer({
 *   authenticate: BearerAuth.jwt({ issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp" }),
 *   protectedResource: { resource: "https://mcp.example.com/mcp", authorizationServers: ["https://auth.example.com"] }
 * })
 */
import type { Transport } from "@effect-mcp/core"
import type * as Effect from "effect/Effect"
import { type Authenticate, type AuthUnavailable, bearer, type Unauthorized } from "./internal/server/auth.js"
import * as Introspection from "./internal/server/oauth/introspection.js"
import * as Jwt from "./internal/server/oauth/jwt.js"

export {
  /** The token could not be checked: the authorization server could not be reached or answered garbage (503). */
  AuthUnavailable,
  /** Why a request was refused authentication (401, or 403 for `insufficient_scope`). */
  Unauthorized
} from "./internal/server/auth.js"
export type {
  /** How opaque tokens are introspected (RFC 7662). */
  IntrospectionOptions
} from "./internal/server/oauth/introspection.js"
export type {
  /** How JWT access tokens are verified. */
  JwtOptions
} from "./internal/server/oauth/jwt.js"

/** Checks one token: the identity it carries, or why it is refused. */
export type Verifier = (token: string) => Effect.Effect<Transport.AuthInfo, Unauthorized | AuthUnavailable>

/** A verifier of JWT access tokens from `issuer` for `audience` (keys from its JWKS, kept and refreshed). */
export const jwtVerifier = (options: Jwt.JwtOptions): Verifier => Jwt.make(options)

/** Authenticates every request with a JWT access token from `issuer` for `audience`. */
export const jwt = (options: Jwt.JwtOptions): Authenticate => bearer(Jwt.make(options))

/** A verifier of opaque tokens by RFC 7662 introspection (active answers cached by a hash of the token). */
export const introspectionVerifier = (options: Introspection.IntrospectionOptions): Verifier =>
  Introspection.make(options)

/** Authenticates every request with an opaque token checked by RFC 7662 introspection. */
export const introspection = (options: Introspection.IntrospectionOptions): Authenticate =>
  bearer(Introspection.make(options))
