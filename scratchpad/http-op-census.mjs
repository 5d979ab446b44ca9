// Counts the Effect operations our Streamable HTTP server runs per tools/call (a 2025-11-25 session driven by the
// SDK 1.32 client, in this process): by op kind and by the source of each op's continuation. TOP=n shows more.
// ADAPTER=platform serves it on @effect/platform's HttpServer instead of McpNodeHttpServer.
// PROF=1 instead profiles N=3000 calls (no census) to /tmp/http-inproc.cpuprofile and prints CPU µs per call.
import { McpServer } from "@effect-mcp/core"
import { McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { createServer } from "node:http"
import { makeCensus } from "./census.mjs"

const { state, supervised, report } = makeCensus()
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const platform = process.env.ADAPTER === "platform"
const served = platform
  ? McpHttpServer.layer({}).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
  : McpNodeHttpServer.layer({}, { port: 0 })
const layer = served.pipe(
  Layer.provideMerge(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" }))))
)
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(
  process.env.PROF ? Layer.buildWithScope(layer, scope) : supervised(Layer.buildWithScope(layer, scope))
)
const port = platform ? Context.get(context, HttpServer.HttpServer).address.port : Context.get(context, McpNodeHttpServer.Address).port
const client = new Client({ name: "c", version: "1" })
await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
for (let i = 0; i < 200; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
if (process.env.PROF) {
  const { Session } = await import("node:inspector/promises")
  const { writeFileSync } = await import("node:fs")
  const session = new Session(); session.connect()
  await session.post("Profiler.enable"); await session.post("Profiler.start")
  const n = Number(process.env.N ?? 3000), cpu0 = process.cpuUsage(), t0 = performance.now()
  for (let i = 0; i < n; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
  const ms = performance.now() - t0, cpu = process.cpuUsage(cpu0)
  const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/http-inproc.cpuprofile", JSON.stringify(profile))
  console.log(`${(n / ms * 1000).toFixed(0)} calls/s, CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs per call (client and server)`)
  process.exit(0)
}
const N = 500
state.counting = true
for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
state.counting = false
report(N)
process.exit(0)
