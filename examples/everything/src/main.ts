/**
 * The everything server as a program. `--stdio` serves on stdin/stdout; `--http [--port N]` serves
 * Streamable HTTP on 127.0.0.1 (port 0, any free one, unless given) and prints one line
 * `LISTENING <url>` on stdout once it accepts connections. Logs go to stderr.
 */
import { type McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { StdioServerTransport } from "@effect-mcp/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Everything from "./Everything.js"

const usage = "usage: main.js --stdio | --http [--port N]"

/** What the command line asks for. */
type Mode = { readonly _tag: "Stdio" } | { readonly _tag: "Http"; readonly port: number } | {
  readonly _tag: "Usage"
  readonly problem: string
}

const parse = (args: ReadonlyArray<string>): Mode => {
  if (args.length === 1 && args[0] === "--stdio") return { _tag: "Stdio" }
  if (args[0] !== "--http") return { _tag: "Usage", problem: "expected --stdio or --http" }
  if (args.length === 1) return { _tag: "Http", port: 0 }
  const port = Number(args[2])
  if (args.length === 3 && args[1] === "--port" && Number.isInteger(port) && port >= 0 && port < 65536) {
    return { _tag: "Http", port }
  }
  return { _tag: "Usage", problem: "--http takes only --port N (0 to 65535)" }
}

/** The HTTP endpoint's settings: SSE connections are cut short, so `test_reconnection` exercises resumption. */
const httpOptions: McpHttpServer.Options = { sseConnectionLifetime: "300 millis", retryInterval: "200 millis" }

const serveHttp = (port: number) =>
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

const mode = parse(process.argv.slice(2))
switch (mode._tag) {
  case "Stdio":
    StdioServerTransport.runServer(Everything.layer)
    break
  case "Http":
    serveHttp(mode.port).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
    break
  case "Usage":
    process.stderr.write(`${mode.problem}\n${usage}\n`)
    process.exitCode = 2
}
