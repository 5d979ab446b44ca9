// What a freshly started server does between its imports and its answer to `initialize`, in one process: the
// everything server's Layer built and served over StdioServerTransport.make on two PassThroughs, `initialize`
// written, the time until its response is out. Every module is imported first, so only the building and the first
// request count (cold: once per process). PROF=1 writes /tmp/serve-setup.cpuprofile of that window.
import { McpServer, Transport } from "@effect-mcp/core"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { PassThrough } from "node:stream"
const Everything = await import(new URL("../examples/everything/dist/Everything.js", import.meta.url).href)

const session = new Session()
session.connect()
if (process.env.PROF) {
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
}
const input = new PassThrough(), output = new PassThrough()
const answered = new Promise((resolve) => output.once("data", resolve))
const t0 = performance.now()
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(Everything.layer, scope))
const built = performance.now()
await Effect.runPromise(Scope.extend(
  McpServer.connect.pipe(
    Effect.provideService(McpServer.McpServer, Context.get(context, McpServer.McpServer)),
    Effect.provideService(Transport.Transport, StdioServerTransport.make(input, output))
  ),
  scope
))
const connected = performance.now()
input.write(JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } }
}) + "\n")
await answered
const done = performance.now()
if (process.env.PROF) {
  const { profile } = await session.post("Profiler.stop")
  writeFileSync("/tmp/serve-setup.cpuprofile", JSON.stringify(profile))
}
console.log(
  `build ${(built - t0).toFixed(1)} ms, connect ${(connected - built).toFixed(1)} ms, initialize ${
    (done - connected).toFixed(1)
  } ms: ${(done - t0).toFixed(1)} ms`
)
process.exit(0)
