/**
 * A real OAuth 2.1 / OpenID Connect authorization server for tests: `oidc-provider` (a certified implementation) on
 * 127.0.0.1 with a port of its own, stopped when the test's scope closes. It issues access tokens to two
 * client-credentials clients (`machine`, and `short`, whose tokens live one second) for a resource indicator
 * (RFC 8707): JWTs (`at+jwt`, RS256) unless the resource was registered as opaque, and introspects them for the
 * resource server's client (`resource-server`).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { generateKeyPairSync } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

/** The clients of the test authorization server. */
export const clients = {
  machine: { id: "machine", secret: "machine-secret" },
  short: { id: "short", secret: "short-secret" },
  resourceServer: { id: "resource-server", secret: "resource-server-secret" }
} as const

/** A running authorization server. */
export interface AuthServer {
  /** Its issuer identifier (its base URL). */
  readonly issuer: string
  /** Resources whose access tokens are opaque (introspected) rather than JWTs. */
  readonly opaque: Set<string>
  /** An access token from the client-credentials grant, for `resource` with `scope`. */
  readonly token: (options: {
    readonly resource: string
    readonly scope: string
    readonly client?: { readonly id: string; readonly secret: string }
  }) => Effect.Effect<string>
}

/** Starts an authorization server on 127.0.0.1 for the test's scope. */
export const start: Effect.Effect<AuthServer, never, Scope.Scope> = Effect.gen(function*() {
  const opaque = new Set<string>()
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "test-key", alg: "RS256", use: "sig" }
  const server = createServer()
  yield* Effect.async<void>((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.void))
  })
  yield* Effect.addFinalizer(() =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = (c: { readonly id: string; readonly secret: string }, grants: Array<string>) => ({
    client_id: c.id,
    client_secret: c.secret,
    grant_types: grants,
    redirect_uris: [],
    response_types: []
  })
  const provider = new Provider(issuer, {
    clients: [
      client(clients.machine, ["client_credentials"]),
      client(clients.short, ["client_credentials"]),
      client(clients.resourceServer, [])
    ],
    jwks: { keys: [jwk] },
    scopes: ["mcp:read", "mcp:write"],
    // The `short` client's tokens live one second (this, not the resource server's accessTokenTTL, is what counts).
    ttl: { ClientCredentials: (_ctx, _token, c) => (c.clientId === clients.short.id ? 1 : 300) },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Any client of this server may introspect (the test's resource server is one).
      introspection: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: "mcp:read mcp:write",
          audience: resource,
          accessTokenFormat: opaque.has(resource) ? "opaque" : "jwt",
          jwt: { sign: { alg: "RS256" } }
        })
      }
    }
  })
  server.on("request", provider.callback())
  const token: AuthServer["token"] = ({ client: c = clients.machine, resource, scope }) =>
    Effect.promise(async () => {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${c.id}:${c.secret}`)}`,
          "content-type": "application/x-www-form-urlencoded"
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }).toString()
      })
      const body = await response.json() as { readonly access_token?: string; readonly error_description?: string }
      if (body.access_token === undefined) throw new Error(`no token: ${response.status} ${JSON.stringify(body)}`)
      return body.access_token
    })
  return { issuer, opaque, token }
})
