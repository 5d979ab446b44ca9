// The JavaScript a stdio server spends per request, without processes or pipes: StdioServerTransport.make over two
// PassThroughs, one registry with an echo tool, requests written one at a time as lines, each awaited on the output.
// Prints µs per request (wall, one process: all of it is the server's JS plus the PassThroughs'). PROF=1 writes
// /tmp/server-floor.cpuprofile (INTERVAL: µs between samples, 1000 by default); ALLOC=1 /tmp/server-floor.heapprofile (sampled allocations, minor GCs included).
import { McpServer, Tool, Transport } from "@effect-mcp/core"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { PassThrough } from "node:stream"
// KEEP=1 keeps one fiber alive the whole time, as a server's main fiber is (Effect's roots Set never empties).
if (process.env.KEEP === "1") Effect.runFork(Effect.flatMap(Deferred.make(), Deferred.await))
const input = new PassThrough(), output = new PassThrough()
const scope = Effect.runSync(Scope.make())
await Effect.runPromise(Scope.extend(Effect.gen(function*() {
  const registry = yield* McpServer.make({ name: "bench", version: "1" })
  yield* registry.addTool(Tool.make({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }, Context.empty()))
  yield* McpServer.connect.pipe(Effect.provideService(McpServer.McpServer, registry), Effect.provideService(Transport.Transport, StdioServerTransport.make(input, output)))
}).pipe(
  // METRICS=off: the connection is made with Effect's runtime metrics off (every fiber it forks updates five
  // metrics when they are on, Effect's default).
  process.env.METRICS === "off" ? Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.disable(RuntimeFlags.RuntimeMetrics)) : (e) => e
), scope))
let waiting
output.setEncoding("utf8")
output.on("data", (d) => { const w = waiting; waiting = undefined; w?.(d) })
const send = (o) => new Promise((r) => { waiting = r; input.write(JSON.stringify(o) + "\n") })
await send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } })
input.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
let id = 1
const call = () => send({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } })
const run = async (n) => { for (let i = 0; i < n; i++) await call() }
console.log((await call()).slice(0, 120))
await run(20000)
const session = new Session(); session.connect()
if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: Number(process.env.INTERVAL ?? 1000) }); await session.post("Profiler.start") }
if (process.env.ALLOC) await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
const N = Number(process.env.N ?? 50000)
const c0 = process.cpuUsage(), t0 = performance.now()
await run(N)
const ms = performance.now() - t0, c = process.cpuUsage(c0)
if (process.env.ALLOC) { const { profile } = await session.post("HeapProfiler.stopSampling"); writeFileSync("/tmp/server-floor.heapprofile", JSON.stringify(profile)) }
if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/server-floor.cpuprofile", JSON.stringify(profile)) }
console.log(`${(ms * 1000 / N).toFixed(2)} µs/request wall, CPU ${((c.user + c.system) / N).toFixed(2)} µs`)
process.exit(0)
