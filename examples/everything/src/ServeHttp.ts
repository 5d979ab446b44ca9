/**
 * The everything server over Streamable HTTP: a module of its own, so that a server started with `--stdio` never
 * loads the HTTP stack (`main.ts` imports this one only for `--http`).
 */
import { type McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Everything from "./Everything.js"

/** The HTTP endpoint's settings: SSE connections are cut short, so `test_reconnection` exercises resumption. */
const httpOptions: McpHttpServer.Options = { sseConnectionLifetime: "300 millis", retryInterval: "200 millis" }

/**
 * Serves Streamable HTTP on 127.0.0.1 at `port` (0: any free one), prints `LISTENING <url>` on stdout once it
 * accepts connections, and serves until interrupted (it fails only when it cannot listen).
 */
export const serveHttp = (port: number): Effect.Effect<never, McpNodeHttpServer.ListenError> =>
  Effect.gen(function*() {
    const { url } = yield* McpNodeHttpServer.Address
    yield* Effect.logInfo(`everything: serving Streamable HTTP on ${url}`)
    yield* Effect.sync(() => process.stdout.write(`LISTENING ${url}\n`))
    return yield* Effect.never
  }).pipe(
    Effect.provide(
      McpNodeHttpServer.layer(httpOptions, { port }).pipe(Layer.provideMerge(Everything.layer))
    ),
    Effect.provide(StdioServerTransport.loggerLayer)
  )
