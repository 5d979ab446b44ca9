/**
 * The scenario server as a program: `--stdio` serves on stdin/stdout; `--http [--port N]` serves
 * Streamable HTTP at `/mcp` (and the deprecated HTTP+SSE transport at `/sse`) on 127.0.0.1 and
 * prints one line `LISTENING <url>` on stdout once it accepts connections. Logs go to stderr.
 */
import { McpNodeHttpServer } from "@effect-mcp/http"
import { StdioServerTransport } from "@effect-mcp/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scenarios from "./Scenarios.js"

const serveHttp = (port: number) =>
  Effect.gen(function*() {
    const { url } = yield* McpNodeHttpServer.Address
    yield* Effect.sync(() => process.stdout.write(`LISTENING ${url}\n`))
    return yield* Effect.never
  }).pipe(
    Effect.provide(
      McpNodeHttpServer.layer({ legacySse: true }, { port }).pipe(Layer.provideMerge(Scenarios.make()))
    ),
    Effect.provide(StdioServerTransport.loggerLayer)
  )

const [mode, flag, value] = process.argv.slice(2)
if (mode === "--stdio") {
  StdioServerTransport.runServer(Scenarios.make())
} else if (mode === "--http" && (flag === undefined || (flag === "--port" && /^\d+$/.test(value ?? "")))) {
  serveHttp(Number(value ?? 0)).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
} else {
  process.stderr.write("usage: main.js --stdio | --http [--port N]\n")
  process.exitCode = 2
}
