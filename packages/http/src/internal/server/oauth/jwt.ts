/**
 * JWT access tokens checked against the issuer's keys (with `jose`): the key set from `jwksUrl` or from the issuer's
 * discovered metadata, both kept (jose refetches the set for an unknown `kid`, at most once per cooldown); then the
 * issuer, the audience (this resource), `exp`/`nbf`, the signature, and `typ` (`at+jwt`, RFC 9068, or `JWT`). Every
 * refusal is an `Unauthorized` (invalid_token) with a fixed reason that never quotes the token; keys or metadata
 * that cannot be fetched or read are an `AuthUnavailable`.
 */
import type { Transport } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Jose from "jose"
import { AuthUnavailable, Unauthorized } from "../auth.js"
import * as Claims from "./claims.js"
import * as Discovery from "./discovery.js"
import { boundedText, defaultLimits } from "./fetchJson.js"
import { remembered } from "./remembered.js"

/** How JWT access tokens are verified. */
export interface JwtOptions {
  /** The issuer (`iss`), exactly as its metadata names it. */
  readonly issuer: string
  /** This resource's identifier (the MCP endpoint's URL): the token's `aud` must name one of these. */
  readonly audience: string | ReadonlyArray<string>
  /** The issuer's key set (default: `jwks_uri` of its RFC 8414 or OpenID Connect metadata). */
  readonly jwksUrl?: string
  /** The signature algorithms accepted (default: the asymmetric ones, RS/PS/ES and EdDSA). */
  readonly algorithms?: ReadonlyArray<string>
  /** Leeway for `exp` and `nbf` (default 5 seconds). */
  readonly clockTolerance?: Duration.DurationInput
  /** The least time between two fetches of the key set for an unknown `kid` (default 30 seconds). */
  readonly jwksCooldown?: Duration.DurationInput
}

const asymmetric = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"]

/** How long a failed discovery or key-set fetch is remembered before the issuer is asked again. */
const retryAfterMs = 10_000

const invalid = (reason: string) => new Unauthorized({ reason, error: "invalid_token" })

/** Why jose refused a token, said without quoting it. */
const reasonOf = (cause: unknown): string => {
  if (!(cause instanceof Jose.errors.JOSEError)) return "The token could not be verified"
  switch (cause.code) {
    case "ERR_JWT_EXPIRED":
      return "The token has expired"
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const claim = (cause as Jose.errors.JWTClaimValidationFailed).claim
      return claim === "aud"
        ? "The token is not for this resource"
        : claim === "iss"
        ? "The token was issued by another issuer"
        : claim === "nbf"
        ? "The token is not valid yet"
        : claim === "exp"
        ? "The token has no expiry"
        : "The token has a claim this resource does not accept"
    }
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "The token's signature does not verify"
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "The token is not a well-formed JWT"
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "The token is signed with an algorithm this resource does not accept"
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "The token is not signed with a key of its issuer"
    case "ERR_JOSE_NOT_SUPPORTED":
      return "The token uses an algorithm or a key this resource does not support"
    default:
      return "The token could not be verified"
  }
}

/** Errors of the key set's lookup that are the token's fault; any other is the key set's. */
const tokenFaults = new Set(["ERR_JWKS_NO_MATCHING_KEY", "ERR_JWKS_MULTIPLE_MATCHING_KEYS", "ERR_JOSE_NOT_SUPPORTED"])

/** fetch for jose, its body bounded (a larger one reads as a failed fetch). */
const boundedFetch: Jose.FetchImplementation = (url, init) =>
  fetch(url, init).then(async (response) => {
    const text = await boundedText(response, defaultLimits.maxBytes)
    return text === undefined
      ? new Response(null, { status: 502 })
      : new Response(text, { status: response.status, headers: response.headers })
  })

/** Whether a `typ` header names an access token: `at+jwt` (RFC 9068) or `JWT`, with or without `application/`. */
const isAccessTokenType = (typ: unknown): boolean => {
  if (typeof typ !== "string") return false
  const t = typ.toLowerCase().replace(/^application\//, "")
  return t === "at+jwt" || t === "jwt"
}

/** A verifier of JWT access tokens: the identity of a valid one, or why not. */
export const make = (
  options: JwtOptions
): (token: string) => Effect.Effect<Transport.AuthInfo, Unauthorized | AuthUnavailable> => {
  const { issuer } = options
  const audience = typeof options.audience === "string" ? [options.audience] : [...options.audience]
  const cooldownDuration = Duration.toMillis(options.jwksCooldown ?? Duration.seconds(30))
  const keySetUrl = options.jwksUrl !== undefined
    ? Effect.succeed(options.jwksUrl)
    : Effect.flatMap(Discovery.discover(issuer), (metadata) =>
      metadata.jwksUri === undefined
        ? Effect.fail(new AuthUnavailable({ reason: `the metadata of ${issuer} names no jwks_uri` }))
        : Effect.succeed(metadata.jwksUri))
  const keySet = remembered(
    Effect.flatMap(keySetUrl, (url) =>
      Discovery.isHttpUrl(url)
        ? Effect.succeed(Jose.createRemoteJWKSet(new URL(url), {
          cooldownDuration,
          timeoutDuration: defaultLimits.timeoutMs,
          [Jose.customFetch]: boundedFetch
        }))
        : Effect.fail(new AuthUnavailable({ reason: `the key set URL of ${issuer} is not an http(s) URL` }))),
    retryAfterMs
  )
  const keySetFailed = new AuthUnavailable({ reason: `the key set of ${issuer} could not be fetched or read` })
  // When a fetch of the key set fails, a lookup that would fetch it again is refused at once for `retryAfterMs`
  // (jose itself retries on the next lookup): a key set that is down costs one fetch per window, not a fetch, and
  // its timeout, per request. A token whose key is already held is still checked.
  let keySetFailedAt = Number.NEGATIVE_INFINITY
  const verifyOptions: Jose.JWTVerifyOptions = {
    issuer,
    audience,
    algorithms: [...(options.algorithms ?? asymmetric)],
    clockTolerance: Duration.toSeconds(options.clockTolerance ?? Duration.seconds(5)),
    requiredClaims: ["exp"]
  }
  return (token) =>
    Effect.gen(function*() {
      // The issuer is read before any key is looked up: a foreign token never makes us fetch keys.
      const unverified = yield* Effect.try({
        try: () => Jose.decodeJwt(token),
        catch: () => invalid("The token is not a well-formed JWT")
      })
      if (unverified.iss !== issuer) return yield* invalid("The token was issued by another issuer")
      const remote = yield* keySet
      // Failures of the key set's fetch are told apart from the token's own: the former are AuthUnavailable.
      const getKey: Jose.JWTVerifyGetKey = (header, input) => {
        const held = remote.jwks()?.keys.some((key) => key.kid !== undefined && key.kid === header.kid) ?? false
        if (!held && Date.now() - keySetFailedAt < retryAfterMs) return Promise.reject(keySetFailed)
        return remote(header, input).catch((cause: unknown) => {
          if (cause instanceof Jose.errors.JOSEError && tokenFaults.has(cause.code)) return Promise.reject(cause)
          keySetFailedAt = Date.now()
          return Promise.reject(keySetFailed)
        })
      }
      const verified = yield* Effect.tryPromise({
        try: () => Jose.jwtVerify(token, getKey, verifyOptions),
        catch: (cause) => (cause instanceof AuthUnavailable ? cause : invalid(reasonOf(cause)))
      })
      if (!isAccessTokenType(verified.protectedHeader.typ)) {
        return yield* invalid("The token is not an access token (its typ is neither at+jwt nor JWT)")
      }
      return Claims.authInfo(token, verified.payload)
    })
}
