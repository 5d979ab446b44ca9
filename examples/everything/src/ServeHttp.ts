/**
 * The everything server over Streamable HTTP: a module of its own, so that a server started with `--stdio` never
 * loads the HTTP stack (`main.ts` imports this one only for `--http`). With an authorization server's issuer, the whole
 * endpoint is protected: JWT access tokens from that issuer for this endpoint's own URL, its RFC 9728 metadata served,
 * and `echo` requires the scope `mcp:write`.
 */
import { BearerAuth, type McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Everything from "./Everything.js"

/** The HTTP endpoint's settings: SSE connections are cut short, so `test_reconnection` exercises resumption. */
const httpOptions: McpHttpServer.Options = { sseConnectionLifetime: "300 millis", retryInterval: "200 millis" }

/** The scope `echo` requires on a protected endpoint. */
export const echoScope = "mcp:write"

/**
 * The settings of an endpoint protected by `issuer`, made once it listens: the token audience and the resource
 * metadata's `resource` are its own URL (the one printed after `LISTENING`).
 */
const protectedBy = (issuer: string) => ({ origin }: McpNodeHttpServer.Listening): McpHttpServer.Options => {
  const resource = `${origin}/mcp`
  return {
    ...httpOptions,
    authenticate: BearerAuth.jwt({ issuer, audience: resource }),
    protectedResource: {
      resource,
      authorizationServers: [issuer],
      scopesSupported: [echoScope],
      resourceName: Everything.info.title ?? Everything.info.name
    }
  }
}

/**
 * Serves Streamable HTTP on 127.0.0.1 at `port` (0: any free one), prints `LISTENING <url>` on stdout once it
 * accepts connections, and serves until interrupted (it fails only when it cannot listen). With `authIssuer`, every
 * request needs a JWT access token from that issuer, and `echo` needs the scope `mcp:write`.
 */
export const serveHttp = (
  port: number,
  authIssuer?: string
): Effect.Effect<never, McpNodeHttpServer.ListenError> =>
  Effect.gen(function*() {
    const { url } = yield* McpNodeHttpServer.Address
    yield* Effect.logInfo(`everything: serving Streamable HTTP on ${url}`)
    if (authIssuer !== undefined) yield* Effect.logInfo(`everything: access tokens from ${authIssuer}`)
    yield* Effect.sync(() => process.stdout.write(`LISTENING ${url}\n`))
    return yield* Effect.never
  }).pipe(
    Effect.provide(
      authIssuer === undefined
        ? McpNodeHttpServer.layer(httpOptions, { port }).pipe(Layer.provideMerge(Everything.layer))
        : McpNodeHttpServer.layer(protectedBy(authIssuer), { port }).pipe(
          Layer.provideMerge(Everything.make({ echoScopes: [echoScope] }))
        )
    ),
    Effect.provide(StdioServerTransport.loggerLayer)
  )
