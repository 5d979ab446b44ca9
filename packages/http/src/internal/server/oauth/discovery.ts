/**
 * Authorization server metadata: found from the issuer's URL (RFC 8414's well-known path first, then OpenID Connect
 * discovery), checked (it must name the same issuer, and its endpoints must be http(s) URLs), and reduced to what the
 * verifiers use.
 */
import * as Effect from "effect/Effect"
import { AuthUnavailable } from "../auth.js"
import { fetchJson } from "./fetchJson.js"

/** What the verifiers use of an authorization server's metadata. */
export interface ServerMetadata {
  readonly issuer: string
  /** Where its signing keys are published. */
  readonly jwksUri: string | undefined
  /** Its RFC 7662 introspection endpoint. */
  readonly introspectionEndpoint: string | undefined
}

/** The metadata URLs of an issuer, in the order they are tried: RFC 8414, then OpenID Connect discovery. */
export const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/** Whether `u` is an absolute http(s) URL. */
export const isHttpUrl = (u: unknown): u is string => {
  if (typeof u !== "string" || !URL.canParse(u)) return false
  const protocol = new URL(u).protocol
  return protocol === "https:" || protocol === "http:"
}

/** An endpoint of the document: absent, or an http(s) URL. */
const endpoint = (url: string, doc: Record<string, unknown>, field: string) => {
  const value = doc[field]
  return value === undefined || isHttpUrl(value)
    ? Effect.succeed(value)
    : Effect.fail(new AuthUnavailable({ reason: `${url}: ${field} is not an http(s) URL` }))
}

/** One metadata document, checked against the issuer it was asked for. */
const read = (url: string, issuer: string): Effect.Effect<ServerMetadata, AuthUnavailable> =>
  Effect.gen(function*() {
    const doc = yield* fetchJson(url)
    if (doc.issuer !== issuer) {
      return yield* new AuthUnavailable({ reason: `${url} describes another issuer than ${issuer}` })
    }
    const jwksUri = yield* endpoint(url, doc, "jwks_uri")
    const introspectionEndpoint = yield* endpoint(url, doc, "introspection_endpoint")
    return { issuer, jwksUri, introspectionEndpoint }
  })

/** The metadata of `issuer`: the first of its well-known documents that can be read and names it. */
export const discover = (issuer: string): Effect.Effect<ServerMetadata, AuthUnavailable> =>
  URL.canParse(issuer)
    ? Effect.firstSuccessOf(metadataUrls(issuer).map((url) => read(url, issuer)))
    : Effect.fail(new AuthUnavailable({ reason: `the issuer ${issuer} is not a URL` }))
