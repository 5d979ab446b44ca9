/**
 * Opaque access tokens checked by RFC 7662 token introspection: a form POST of the token to the authorization
 * server's introspection endpoint, authenticated as this resource (`client_secret_basic`); an `active` answer whose
 * `exp` has not passed and whose `aud` names this resource (when an audience is given) is the identity. Active answers
 * are cached by a hash of the token, bounded in size and by `exp`.
 */
import type { Transport } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AuthUnavailable, Unauthorized } from "../auth.js"
import * as Claims from "./claims.js"
import { fetchJson } from "./fetchJson.js"
import * as TokenCache from "./tokenCache.js"

/** How opaque tokens are introspected. */
export interface IntrospectionOptions {
  /** The RFC 7662 introspection endpoint. */
  readonly endpoint: string
  /** This resource's client id at the authorization server. */
  readonly clientId: string
  /** Its client secret (sent with HTTP Basic authentication). */
  readonly clientSecret: string
  /** This resource's identifier: when given, the answer's `aud` must name one of these. */
  readonly audience?: string | ReadonlyArray<string>
  /** How many tokens' answers are kept (default 1,000; 0 keeps none). */
  readonly cacheSize?: number
  /** The longest an answer is kept, however far its `exp` (default 60 seconds). */
  readonly cacheTtl?: Duration.DurationInput
}

const invalid = (reason: string) => new Unauthorized({ reason, error: "invalid_token" })

/** `application/x-www-form-urlencoded` of a client id or secret, as HTTP Basic authentication wants it (RFC 6749). */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+")

/** A verifier of opaque tokens by introspection: the identity of an active one, or why not. */
export const make = (
  options: IntrospectionOptions
): (token: string) => Effect.Effect<Transport.AuthInfo, Unauthorized | AuthUnavailable> => {
  const audience = options.audience === undefined
    ? undefined
    : typeof options.audience === "string"
    ? [options.audience]
    : options.audience
  const cache = TokenCache.make(
    options.cacheSize ?? 1_000,
    Duration.toMillis(options.cacheTtl ?? Duration.seconds(60))
  )
  const credentials = btoa(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`)
  const headers = {
    authorization: `Basic ${credentials}`,
    "content-type": "application/x-www-form-urlencoded"
  }
  return (token) =>
    Effect.gen(function*() {
      const key = yield* TokenCache.keyOf(token)
      const kept = cache.get(key)
      if (kept !== undefined) return kept
      const answer = yield* fetchJson(options.endpoint, {
        method: "POST",
        headers,
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString()
      })
      if (typeof answer.active !== "boolean") {
        return yield* new AuthUnavailable({ reason: `${options.endpoint} answered without a boolean "active"` })
      }
      if (!answer.active) return yield* invalid("The token is not active")
      const exp = typeof answer.exp === "number" ? answer.exp * 1000 : undefined
      if (exp !== undefined && exp <= Date.now()) return yield* invalid("The token has expired")
      if (audience !== undefined && !Claims.hasAudience(answer.aud, audience)) {
        return yield* invalid("The token is not for this resource")
      }
      const info = Claims.authInfo(token, answer)
      cache.set(key, info, exp)
      return info
    })
}
