/**
 * Where a protected resource's authorization server is and what it supports: its protected resource metadata (RFC
 * 9728) from the challenge's `resource_metadata`, else the path-based then the root well-known location; the
 * authorization server's metadata at the RFC 8414 and OpenID Connect locations in the order the MCP specification
 * gives, checked against the issuer; and, for a server of the 2025-03-26 revision that has no resource metadata,
 * the metadata at its origin or the default endpoints there (`/authorize`, `/token`, `/register`).
 */
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import { AuthorizationRefused, AuthServerError } from "../OAuthError.js"
import * as Documents from "./documents.js"
import * as Exchange from "./exchange.js"

/** What discovery found for one protected resource. */
export interface Discovered {
  /** The resource indicator (RFC 8707) sent with every authorization and token request. */
  readonly resource: string
  /** The scopes the resource metadata lists. */
  readonly resourceScopes: ReadonlyArray<string> | undefined
  /** The authorization server's issuer: credentials are kept per issuer. */
  readonly issuer: string
  /** Its metadata (made of the default endpoints for a 2025-03-26 server without any). */
  readonly server: Documents.ServerMetadata
  /** Whether the metadata was found (false: the 2025-03-26 default endpoints). */
  readonly hasMetadata: boolean
}

/** Drops a trailing slash, so that `https://as` and `https://as/` name the same issuer. */
export const sameUrl = (a: string, b: string): boolean => a.replace(/\/+$/, "") === b.replace(/\/+$/, "")

/** The well-known URLs of RFC 9728 for a resource: path-based first, then the root. */
export const resourceMetadataUrls = (resource: URL): ReadonlyArray<string> => {
  const path = resource.pathname.replace(/\/+$/, "")
  const root = `${resource.origin}/.well-known/oauth-protected-resource`
  return path === "" ? [root] : [`${root}${path}`, root]
}

/** The metadata URLs of an issuer, in the MCP specification's order (2025-11-25, "Authorization Server Metadata Discovery"). */
export const serverMetadataUrls = (issuer: URL): ReadonlyArray<string> => {
  const path = issuer.pathname.replace(/\/+$/, "")
  return path === ""
    ? [
      `${issuer.origin}/.well-known/oauth-authorization-server`,
      `${issuer.origin}/.well-known/openid-configuration`
    ]
    : [
      `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
      `${issuer.origin}/.well-known/openid-configuration${path}`,
      `${issuer.origin}${path}/.well-known/openid-configuration`
    ]
}

/** The first of `urls` that answers a document (the others answered 4xx), or `undefined`. */
const firstFound = (
  execute: McpHttpClient.Execute,
  stage: "resource-metadata" | "authorization-server-metadata",
  urls: ReadonlyArray<string>,
  limits: Exchange.Limits
): Effect.Effect<{ readonly url: string; readonly document: Record<string, unknown> } | undefined, AuthServerError> =>
  Effect.reduce(
    urls,
    undefined as { readonly url: string; readonly document: Record<string, unknown> } | undefined,
    (found, url) =>
      found !== undefined
        ? Effect.succeed(found)
        : Effect.map(
          Exchange.getDocument(execute, stage, url, limits),
          (document) => document === undefined ? undefined : { url, document }
        )
  )

/** The authorization server metadata of an issuer, checked to be that issuer's (RFC 8414 §3.3). */
export const serverMetadata = (
  execute: McpHttpClient.Execute,
  issuer: string,
  limits: Exchange.Limits
): Effect.Effect<Documents.ServerMetadata, AuthServerError> =>
  Effect.gen(function*() {
    const urls = serverMetadataUrls(new URL(issuer))
    const found = yield* firstFound(execute, "authorization-server-metadata", urls, limits)
    if (found === undefined) {
      return yield* new AuthServerError({
        stage: "authorization-server-metadata",
        reason: `no metadata for the authorization server ${issuer} (tried ${urls.join(", ")})`
      })
    }
    const metadata = yield* Documents.decode(Documents.ServerMetadata, "authorization-server-metadata", found.url)(
      found.document
    )
    if (!sameUrl(metadata.issuer, issuer)) {
      return yield* new AuthServerError({
        stage: "authorization-server-metadata",
        reason: `${found.url} names the issuer ${metadata.issuer}, not ${issuer}`
      })
    }
    return metadata
  })

/** What the 2025-03-26 revision falls back to when a server has no metadata: the default endpoints at its origin. */
const defaultEndpoints = (origin: string): Documents.ServerMetadata => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`
})

/** Discovers the authorization server of the resource at `endpoint`, from the challenge's metadata URL if any. */
export const discover = (
  execute: McpHttpClient.Execute,
  endpoint: URL,
  resourceMetadataUrl: string | undefined,
  limits: Exchange.Limits
): Effect.Effect<Discovered, AuthServerError | AuthorizationRefused> =>
  Effect.gen(function*() {
    const hinted = resourceMetadataUrl !== undefined && URL.canParse(resourceMetadataUrl)
      ? [resourceMetadataUrl]
      : []
    const found = yield* firstFound(
      execute,
      "resource-metadata",
      [...hinted, ...resourceMetadataUrls(endpoint).filter((u) => !hinted.includes(u))],
      limits
    )
    if (found === undefined) {
      // The 2025-03-26 revision: the authorization server is the MCP server's origin.
      const origin = endpoint.origin
      const metadata = yield* firstFound(
        execute,
        "authorization-server-metadata",
        serverMetadataUrls(new URL(origin)),
        limits
      )
      const server = metadata === undefined
        ? defaultEndpoints(origin)
        : yield* Documents.decode(Documents.ServerMetadata, "authorization-server-metadata", metadata.url)(
          metadata.document
        )
      return {
        resource: canonicalResource(endpoint),
        resourceScopes: undefined,
        issuer: metadata === undefined ? origin : server.issuer,
        server,
        hasMetadata: metadata !== undefined
      }
    }
    const prm = yield* Documents.decode(Documents.ResourceMetadata, "resource-metadata", found.url)(found.document)
    if (!resourceMatches(prm.resource, endpoint)) {
      return yield* new AuthorizationRefused({
        reason: `${found.url} describes the resource ${prm.resource}, which is not ${endpoint.href}`
      })
    }
    const issuer = prm.authorization_servers?.[0]
    if (issuer === undefined) {
      return yield* new AuthServerError({
        stage: "resource-metadata",
        reason: `${found.url} names no authorization server`
      })
    }
    const server = yield* serverMetadata(execute, issuer, limits)
    return { resource: prm.resource, resourceScopes: prm.scopes_supported, issuer, server, hasMetadata: true }
  })

/** The canonical URI of an MCP endpoint (RFC 8707, MCP "Canonical Server URI"): no fragment, no query. */
export const canonicalResource = (endpoint: URL): string => {
  const url = new URL(endpoint.href)
  url.hash = ""
  url.search = ""
  return url.href
}

/** Whether the metadata's `resource` covers the endpoint: the same origin, and a path that is the endpoint's or a prefix of it. */
const resourceMatches = (resource: string, endpoint: URL): boolean => {
  if (!URL.canParse(resource)) return false
  const declared = new URL(resource)
  if (declared.origin !== endpoint.origin) return false
  const prefix = declared.pathname.replace(/\/+$/, "")
  const path = endpoint.pathname.replace(/\/+$/, "")
  return path === prefix || path.startsWith(`${prefix}/`)
}
