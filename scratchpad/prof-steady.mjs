// Profiles only the steady state of sequential in-memory tools/call (after a warm-up), to /tmp/steady.cpuprofile.
// REV=2025-11-25 picks a handshake revision; CONC=64 runs that many in flight. Prints wall and CPU µs per call.
// CORE=packages/core/dist-base loads another build of the core package (a copy of its dist made before a change), for
// A/Bs: run the two alternately and compare medians of the CPU column.
import { pathToFileURL } from "node:url"
const { McpClient, McpServer, McpTest } = await import(
  process.env.CORE === undefined ? "@effect-mcp/core" : pathToFileURL(`${process.env.CORE}/index.js`).href
)
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { Session } from "node:inspector/promises"
import { writeFileSync } from "node:fs"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server, { name: "c", version: "1", ...(process.env.REV ? { revision: process.env.REV } : {}) }), scope))
const client = Context.get(context, McpClient.McpClient)
const N = Number(process.env.N ?? 20000), CONC = Number(process.env.CONC ?? 1)
const run = async (n) => { let next = 0; await Promise.all(Array.from({ length: CONC }, async () => { while (next++ < n) await Effect.runPromise(client.callTool("echo", { text: "hello" })) })) }
await run(3000)
const session = new Session(); session.connect()
if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.start") }
if (process.env.ALLOC) await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.ALLOC !== "major" })
const t0 = performance.now()
const cpu0 = process.cpuUsage()
await run(N)
const cpu = process.cpuUsage(cpu0)
const ms = performance.now() - t0
if (process.env.ALLOC) { const { profile } = await session.post("HeapProfiler.stopSampling"); writeFileSync("/tmp/steady.heapprofile", JSON.stringify(profile)) }
if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/steady.cpuprofile", JSON.stringify(profile)) }
console.log(
  `${process.env.CORE ?? "@effect-mcp/core"}: ${(N / ms * 1000).toFixed(0)} calls/s, ${(ms * 1000 / N).toFixed(1)} µs/call, ${
    ((cpu.user + cpu.system) / N).toFixed(1)
  } CPU µs/call`
)
process.exit(0)
