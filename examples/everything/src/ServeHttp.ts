/**
 * The everything server over Streamable HTTP: a module of its own, so that a server started with `--stdio` never
 * loads the HTTP stack (`main.ts` imports this one only for `--http`). With an authorization server's issuer, the whole
 * endpoint is protected: JWT access tokens from that issuer for this endpoint's own URL, its RFC 9728 metadata served,
 * and `echo` requires the scope `mcp:write`. With a Redis URL, the server's shared state (tasks, the requestState keys,
 * the event bus, the SSE event store) is in Redis, and the `cluster_*` tools are added.
 */
import type { McpServer } from "@effect-mcp/core"
import { BearerAuth, type McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { StdioServerTransport } from "@effect-mcp/node"
import { McpRedis, type RedisConnection } from "@effect-mcp/redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Cluster from "./Cluster.js"
import * as Everything from "./Everything.js"

/**
 * The HTTP endpoint's settings: SSE connections are cut short, so `test_reconnection` exercises resumption; the
 * deprecated HTTP+SSE transport (2024-11-05) is served beside it (`/sse`, `/messages`).
 */
const httpOptions: McpHttpServer.Options = {
  sseConnectionLifetime: "300 millis",
  retryInterval: "200 millis",
  legacySse: true
}

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
  authIssuer?: string,
  redis?: string
): Effect.Effect<never, McpNodeHttpServer.ListenError | RedisConnection.RedisError> =>
  Effect.gen(function*() {
    const { url } = yield* McpNodeHttpServer.Address
    yield* Effect.logInfo(`everything: serving Streamable HTTP on ${url}`)
    if (authIssuer !== undefined) yield* Effect.logInfo(`everything: access tokens from ${authIssuer}`)
    if (redis !== undefined) yield* Effect.logInfo(`everything: shared state in Redis at ${redis}`)
    yield* Effect.sync(() => process.stdout.write(`LISTENING ${url}\n`))
    return yield* Effect.never
  }).pipe(
    Effect.provide(
      authIssuer === undefined
        ? McpNodeHttpServer.layer(httpOptions, { port }).pipe(Layer.provideMerge(server(redis, {})))
        : McpNodeHttpServer.layer(protectedBy(authIssuer), { port }).pipe(
          Layer.provideMerge(server(redis, { echoScopes: [echoScope] }))
        )
    ),
    Effect.provide(StdioServerTransport.loggerLayer)
  )

/**
 * The everything server, alone or (with a Redis URL) as one process of several: its shared state in Redis, under the
 * HTTP endpoint too (the endpoint reads the SSE event store from the same context), with the cluster's tools.
 */
const server = (
  redis: string | undefined,
  options: Everything.Options
): Layer.Layer<McpServer.McpServer, RedisConnection.RedisError> =>
  redis === undefined
    ? Everything.make(options)
    : Cluster.layer.pipe(
      Layer.provideMerge(Everything.make(options)),
      Layer.provideMerge(McpRedis.layer({ url: redis }))
    )
