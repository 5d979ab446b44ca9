// Why calls driven by a runPromise each cost more when no other fiber is alive (session 13's open question).
// A pair built from values (McpServer.make + connect + McpClient.make: no fiber stays alive), then sequential calls
// each through Effect.runPromise. KEEP=deferred forks a daemon fiber that waits on a Deferred (no timer);
// KEEP=never one on Effect.never (which holds a setInterval); KEEP=interval a bare setInterval; KEEP=set adds a
// dummy entry to nothing (control). NOROOTS=1 stops Effect from keeping root fibers in its global Set at all.
import { InMemoryTransport, McpClient, McpServer, Tool, Transport } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
if (process.env.NOROOTS === "1") {
  const { globalScope } = await import(new URL("../node_modules/effect/dist/esm/internal/fiberScope.js", import.meta.url).href)
  globalScope.add = () => {}
}
const def = { name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }
const scope = Effect.runSync(Scope.make())
const client = await Effect.runPromise(Scope.extend(Effect.gen(function*() {
  const registry = yield* McpServer.make({ name: "bench", version: "1" })
  yield* registry.addTool(Tool.make(def, Context.empty()))
  const pair = yield* InMemoryTransport.makePair
  yield* McpServer.connect.pipe(Effect.provideService(McpServer.McpServer, registry), Effect.provideService(Transport.Transport, pair.server))
  return yield* McpClient.make({ name: "c", version: "1", ...(process.env.REV ? { revision: process.env.REV } : {}) }).pipe(Effect.provideService(Transport.Transport, pair.client))
}), scope))
const KEEP = process.env.KEEP ?? "none"
if (KEEP === "deferred") { const d = Effect.runSync(Deferred.make()); Effect.runFork(Deferred.await(d)) }
if (KEEP === "never") Effect.runFork(Effect.never)
if (KEEP === "interval") setInterval(() => {}, 1 << 30)
const N = Number(process.env.N ?? 30000)
const run = async (n) => { for (let i = 0; i < n; i++) await Effect.runPromise(client.callTool("echo", { text: "hello" })) }
await run(5000)
let gcMs = 0
new (await import("node:perf_hooks")).PerformanceObserver((l) => { for (const e of l.getEntries()) gcMs += e.duration }).observe({ entryTypes: ["gc"] })
const t0 = performance.now()
await run(N)
const ms = performance.now() - t0
console.log(`${process.env.NOROOTS === "1" ? "noroots" : KEEP} ${(ms * 1000 / N).toFixed(1)} µs/call, GC ${(gcMs * 1000 / N).toFixed(1)} µs/call`)
process.exit(0)
