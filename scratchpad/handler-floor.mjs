// The Streamable HTTP endpoint's own cost, without any HTTP: calls McpHttpServer.handler's function with in-process
// requests (a 2025-11-25 session, or 2026-07-28 stateless with REV=2026-07-28) and prints CPU µs per tools/call.
// PROF=1 writes /tmp/handler-floor.cpuprofile; ALLOC=1 a sampled allocation profile, /tmp/handler-floor.heapprofile
// (summarise it with `N=<calls> node scratchpad/alloc-summary.mjs /tmp/handler-floor.heapprofile`). CENSUS=1 instead
// counts the Effect operations per call (scratchpad/census.mjs), by kind and by the source of their continuation.
import { McpServer } from "@effect-mcp/core"
import { McpHttpServer } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { makeCensus } from "./census.mjs"

const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const census = process.env.CENSUS ? makeCensus() : undefined
const run = (effect) => Effect.runPromise(census === undefined ? effect : census.supervised(effect))
const scope = Effect.runSync(Scope.make())
const context = await run(Layer.buildWithScope(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" }))), scope))
const built = await run(McpHttpServer.handler({}).pipe(Effect.provide(context), Scope.extend(scope)))
const handle = census === undefined ? built : (request) => census.supervised(built(request))
const stateless = process.env.REV === "2026-07-28"
const base = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" }
const request = (headers, body) => ({
  method: "POST", url: "/mcp", headers: { ...base, ...headers },
  readText: () => Effect.succeed(body)
})
const bodyOf = async (reply) => typeof reply.body === "string" ? reply.body : reply.body === undefined ? "" :
  new TextDecoder().decode((await Effect.runPromise(Stream.runCollect(reply.body).pipe(Effect.map((c) => Buffer.concat([...c]))))))
let headers = {}
if (!stateless) {
  const init = await Effect.runPromise(handle(request({}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } }))))
  await bodyOf(init)
  headers = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25" }
  await Effect.runPromise(handle(request(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))))
} else headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" }
const meta = stateless ? { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} } } : {}
let id = 1
const call = async () => {
  const reply = await Effect.runPromise(handle(request(headers, JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: "echo", arguments: { text: "hello" }, ...meta } }))))
  const text = await bodyOf(reply)
  if (reply.status !== 200 || !text.includes("hello")) { console.error(reply.status, text); process.exit(1) }
}
for (let i = 0; i < 3000; i++) await call()
if (census !== undefined) {
  const n = 500
  census.state.counting = true
  for (let i = 0; i < n; i++) await call()
  census.state.counting = false
  census.report(n)
  process.exit(0)
}
let session
if (process.env.PROF || process.env.ALLOC) {
  const { Session } = await import("node:inspector/promises")
  session = new Session(); session.connect()
  if (process.env.ALLOC) await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  else { await session.post("Profiler.enable"); await session.post("Profiler.start") }
}
const N = Number(process.env.N ?? 20000), cpu0 = process.cpuUsage(), t0 = performance.now()
for (let i = 0; i < N; i++) await call()
const ms = performance.now() - t0, cpu = process.cpuUsage(cpu0)
if (session) {
  const { profile } = await session.post(process.env.ALLOC ? "HeapProfiler.stopSampling" : "Profiler.stop")
  ;(await import("node:fs")).writeFileSync(`/tmp/handler-floor.${process.env.ALLOC ? "heap" : "cpu"}profile`, JSON.stringify(profile))
}
console.log(`${stateless ? "2026-07-28 stateless" : "2025-11-25 session"}: ${(N / ms * 1000).toFixed(0)} calls/s, CPU ${((cpu.user + cpu.system) / N).toFixed(1)} µs per call`)
process.exit(0)
