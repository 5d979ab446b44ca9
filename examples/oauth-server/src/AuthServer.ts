/**
 * A real OAuth 2.1 / OpenID Connect authorization server for tests: `oidc-provider` (a certified implementation) on
 * 127.0.0.1 with a port of its own, stopped when the test's scope closes. It issues access tokens to two
 * client-credentials clients (`machine`, and `short`, whose tokens live one second) for a resource indicator
 * (RFC 8707): JWTs (`at+jwt`, RS256) unless the resource was registered as opaque, and introspects them for the
 * resource server's client (`resource-server`). It also runs the authorization code flow (PKCE S256, RFC 9207 `iss`)
 * for clients that register themselves (RFC 7591), with refresh tokens: its sign-in page signs the user `user` in
 * and grants what was asked at once, without a page, so that a headless client can follow the redirects. Shared
 * by the tests of packages/auth, packages/http, packages/cli and examples/everything, and by examples/login.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { generateKeyPairSync } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
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

/** How the test authorization server is set up. */
export interface Options {
  /** How long access tokens from the authorization code flow live, in seconds (default 300). */
  readonly accessTokenTtl?: number
}

/** Starts an authorization server on 127.0.0.1 for the test's scope. */
export const start: Effect.Effect<AuthServer, never, Scope.Scope> = Effect.suspend(() => startWith())

/** Starts an authorization server on 127.0.0.1 for the test's scope, set up by `options`. */
export const startWith = (options: Options = {}): Effect.Effect<AuthServer, never, Scope.Scope> =>
  Effect.gen(function*() {
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
      scopes: ["openid", "offline_access", "mcp:read", "mcp:write"],
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
      // The `short` client's tokens live one second (this, not the resource server's accessTokenTTL, is what counts).
      // Every lifetime is set here (oidc-provider prints a notice on stdout for each default it falls back to).
      ttl: {
        ClientCredentials: (_ctx, _token, c) => (c.clientId === clients.short.id ? 1 : 300),
        AccessToken: options.accessTokenTtl ?? 300,
        RefreshToken: 24 * 60 * 60,
        Interaction: 10 * 60,
        Grant: 24 * 60 * 60,
        Session: 24 * 60 * 60
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        registration: { enabled: true },
        // Any client of this server may introspect (the test's resource server is one).
        introspection: { enabled: true, allowedPolicy: () => true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => ({
            scope: "mcp:read mcp:write",
            audience: resource,
            accessTokenTTL: options.accessTokenTtl ?? 300,
            accessTokenFormat: opaque.has(resource) ? "opaque" : "jwt",
            jwt: { sign: { alg: "RS256" } }
          })
        }
      }
    })
    const callback = provider.callback()
    server.on("request", (request, response) => {
      if (request.url?.startsWith("/interaction/")) {
        // The sign-in page: the user `user` signs in and grants every scope the client asked for, at once.
        void signIn(provider, request, response).catch(() => {
          if (!response.headersSent) response.writeHead(500).end()
        })
        return
      }
      callback(request, response)
    })
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

/** Completes an interaction: the user `user` signs in and grants the asked scopes for the asked resource. */
const signIn = async (provider: Provider, request: IncomingMessage, response: ServerResponse) => {
  const details = await provider.interactionDetails(request, response)
  const params = details.params as { client_id: string; scope?: string; resource?: string }
  const grant = details.grantId === undefined
    ? new provider.Grant({ accountId: "user", clientId: params.client_id })
    : (await provider.Grant.find(details.grantId))!
  // oidc-provider asks consent for the request's scopes as such, and for the resource's scopes on its own.
  if (params.scope !== undefined) grant.addOIDCScope(params.scope)
  if (params.resource !== undefined) grant.addResourceScope(params.resource, params.scope ?? "")
  const grantId = await grant.save()
  await provider.interactionFinished(request, response, { login: { accountId: "user" }, consent: { grantId } }, {
    mergeWithLastSubmission: true
  })
}
