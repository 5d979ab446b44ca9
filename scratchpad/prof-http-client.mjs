// Profiles our HTTP client (steady state, REV default 2025-11-25; CONC workers, default 1, each awaiting a
// runPromise per call) against examples/everything --http, to /tmp/http-client.cpuprofile (ALLOC=1: a sampled
// allocation profile, /tmp/http-client.heapprofile, for scratchpad/alloc-summary.mjs). McpNodeHttpClient unless CLIENT=platform (McpHttpClient on undici).
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "ignore"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const scope = Effect.runSync(Scope.make())
const revision = process.env.REV ?? "2025-11-25"
const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision })).pipe(Layer.provide(process.env.CLIENT === "platform" ? McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici)) : McpNodeHttpClient.layer({ url }))), scope))
const client = Context.get(context, McpClient.McpClient)
const N = Number(process.env.N ?? 2000)
for (let i = 0; i < Number(process.env.WARM ?? 300); i++) await Effect.runPromise(client.callTool("echo", { text: "hello" }))
const session = new Session(); session.connect()
const prof = process.env.NOPROF === undefined
const alloc = process.env.ALLOC !== undefined
if (alloc) await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
else if (prof) { await session.post("Profiler.enable"); await session.post("Profiler.start") }
const cpu0 = process.cpuUsage(); const t0 = performance.now()
const CONC = Number(process.env.CONC ?? 1)
let next = 0
const worker = async () => { while (next++ < N) await Effect.runPromise(client.callTool("echo", { text: "hello" })) }
await Promise.all(Array.from({ length: CONC }, worker))
const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0)
if (alloc) { const { profile } = await session.post("HeapProfiler.stopSampling"); writeFileSync("/tmp/http-client.heapprofile", JSON.stringify(profile)) }
else if (prof) { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/http-client.cpuprofile", JSON.stringify(profile)) }
console.log(`${(N / ms * 1000).toFixed(0)} calls/s, client CPU ${((cpu.user + cpu.system) / N).toFixed(0)} µs/call`)
await Effect.runPromise(Scope.close(scope, Exit.void))
child.kill("SIGKILL")
process.exit(0)
