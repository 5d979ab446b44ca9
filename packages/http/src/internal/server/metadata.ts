/**
 * OAuth 2.0 protected-resource metadata (RFC 9728): the document, where it is served (the well-known path, and that
 * path suffixed with the resource's own path), and the URL a `WWW-Authenticate` challenge names.
 */
import * as Effect from "effect/Effect"
import type { Incoming, Reply } from "./exchange.js"
import * as Replies from "./reply.js"

/** OAuth 2.0 protected-resource metadata (RFC 9728), served at `/.well-known/oauth-protected-resource`. */
export interface ProtectedResourceMetadata {
  /** The resource identifier: the MCP endpoint's absolute URL. */
  readonly resource: string
  /** The authorization servers that issue tokens for it. */
  readonly authorizationServers: ReadonlyArray<string>
  /** The scopes it understands. */
  readonly scopesSupported?: ReadonlyArray<string>
  /** A human-readable name. */
  readonly resourceName?: string
  /** Where its documentation lives. */
  readonly resourceDocumentation?: string
}

const wellKnown = "/.well-known/oauth-protected-resource"

/** The absolute URL of the metadata of a resource (the well-known path suffixed with the resource's path). */
export const url = (metadata: ProtectedResourceMetadata): string => {
  const resource = new URL(metadata.resource)
  return `${resource.origin}${wellKnown}${resource.pathname === "/" ? "" : resource.pathname}`
}

/** The metadata document as an answer. */
export const reply = (m: ProtectedResourceMetadata): Reply =>
  Replies.json(
    200,
    JSON.stringify({
      resource: m.resource,
      authorization_servers: m.authorizationServers,
      bearer_methods_supported: ["header"],
      ...(m.scopesSupported === undefined ? {} : { scopes_supported: m.scopesSupported }),
      ...(m.resourceName === undefined ? {} : { resource_name: m.resourceName }),
      ...(m.resourceDocumentation === undefined ? {} : { resource_documentation: m.resourceDocumentation })
    })
  )

/** The paths the metadata is served on (GET), each with its handler. */
export const routes = (
  metadata: ProtectedResourceMetadata
): ReadonlyArray<{ readonly path: string; readonly handle: (request: Incoming) => Effect.Effect<Reply> }> => {
  const served = Effect.succeed(reply(metadata))
  const handle = () => served
  const suffix = new URL(metadata.resource).pathname
  return suffix === "/"
    ? [{ path: wellKnown, handle }]
    : [{ path: wellKnown, handle }, { path: `${wellKnown}${suffix}`, handle }]
}
