// Profiles a stdio client (steady state, CONC in flight, default 64) against examples/everything --stdio:
// ours, or SDK=1 the official SDK 1.32's client against the same server, so the two clients' CPU compare.
// SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/sp" profiles the server too (written when it exits).
// The client's profile goes to /tmp/stdio-client.cpuprofile (NOPROF=1: none).
// EFFECT=1 drives ours as CONC fibers of one Effect program, each a loop of calls; FORK=1 as one Effect.forEach over
// all the calls (a child fiber per call). For measurement only, NOPRE=1 turns off V8's allocation-site pretenuring
// in the client process (v8.setFlagsFromString), to see what it costs a call.
import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { PerformanceObserver } from "node:perf_hooks"
import { setFlagsFromString } from "node:v8"
if (process.env.NOPRE === "1") setFlagsFromString("--no-allocation-site-pretenuring")
// GAP=1 times the client's critical path: from each response's arrival (the child's stdout `data` event) to the
// next request's write on the child's stdin handle, and from that write to the next arrival (the server's part and
// the two wake-ups), as medians over the measured calls (CONC=1 only).
const gaps = { client: [], away: [] }
let gapOn = false
if (process.env.GAP === "1") {
  const cp = await import("node:child_process")
  const { syncBuiltinESMExports } = await import("node:module")
  const original = cp.default.spawn
  cp.default.spawn = (...a) => {
    const child = original(...a)
    let readAt = 0, wroteAt = 0
    child.stdout.prependListener("data", () => {
      readAt = performance.now()
      if (gapOn && wroteAt > 0) gaps.away.push(readAt - wroteAt)
    })
    const handle = child.stdin._handle
    for (const m of ["writeUtf8String", "writeBuffer", "writev", "writeLatin1String"]) {
      const f = handle[m]
      if (typeof f !== "function") continue
      handle[m] = function(...b) {
        wroteAt = performance.now()
        if (gapOn && readAt > 0) gaps.client.push(wroteAt - readAt)
        return f.apply(this, b)
      }
    }
    return child
  }
  syncBuiltinESMExports()
}
const command = process.execPath
const args = [...(process.env.SERVER_NODE_ARGS?.split(" ") ?? []), process.env.SERVER_MAIN ?? "examples/everything/dist/main.js", "--stdio"]
let call, close, callEffect
if (process.env.SDK === "1") {
  const client = new V1Client({ name: "p", version: "1" })
  await client.connect(new V1Stdio({ command, args, stderr: "ignore" }))
  call = () => client.callTool({ name: "echo", arguments: { text: "hello" } })
  close = () => client.close()
} else {
  const scope = Effect.runSync(Scope.make())
  const transport = StdioClientTransport.layer({ command, args, stderr: "ignore" })
  const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision: "2025-11-25" })).pipe(Layer.provide(transport)), scope))
  const client = Context.get(context, McpClient.McpClient)
  callEffect = () => client.callTool("echo", { text: "hello" })
  call = () => Effect.runPromise(callEffect())
  close = () => Effect.runPromise(Scope.close(scope, Exit.void))
}
const CONC = Number(process.env.CONC ?? 64), N = Number(process.env.N ?? 20000)
const run = process.env.FORK === "1" && process.env.SDK !== "1"
  ? (n) => Effect.runPromise(Effect.forEach(Array.from({ length: n }), () => callEffect(), { concurrency: CONC, discard: true }))
  : process.env.EFFECT === "1" && process.env.SDK !== "1"
  ? (n) => { let next = 0; const loop = Effect.suspend(() => next++ < n ? Effect.zipRight(callEffect(), loop) : Effect.void); return Effect.runPromise(Effect.forEach(Array.from({ length: CONC }), () => loop, { concurrency: CONC, discard: true })) }
  : async (n) => { let next = 0; await Promise.all(Array.from({ length: CONC }, async () => { while (next++ < n) await call() })) }
await run(Number(process.env.WARM ?? 5000))
const profiling = process.env.NOPROF !== "1"
const session = new Session()
if (profiling) { session.connect(); await session.post("Profiler.enable"); await session.post("Profiler.start") }
let gcs = 0, gcMs = 0; const kinds = {}
new PerformanceObserver((list) => { for (const e of list.getEntries()) { gcs++; gcMs += e.duration; const k = kinds[e.detail?.kind ?? e.kind] ??= [0, 0]; k[0]++; k[1] += e.duration } }).observe({ entryTypes: ["gc"] })
const cpu0 = process.cpuUsage(); const t0 = performance.now()
gapOn = true
await run(N)
const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0)
gapOn = false
if (process.env.GAP === "1") {
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] * 1000
  console.log(`read → next write ${med(gaps.client).toFixed(1)} µs, write → next read ${med(gaps.away).toFixed(1)} µs (medians of ${gaps.client.length})`)
}
if (profiling) { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/stdio-client.cpuprofile", JSON.stringify(profile)) }
console.log(`${process.env.SDK === "1" ? "sdk" : "ours"}: ${(N / ms * 1000).toFixed(0)} calls/s, client CPU ${((cpu.user + cpu.system) / N).toFixed(1)} µs/call (user ${(cpu.user / N).toFixed(1)}, system ${(cpu.system / N).toFixed(1)}); ${gcs} GCs, ${(gcMs * 1000 / N).toFixed(1)} µs/call in GC pauses ${JSON.stringify(kinds)} (kind: count, ms)`)
await close()
process.exit(0)
