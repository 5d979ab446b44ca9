// Profiles the HTTP server (examples/everything --http) under load from our node:http client: CONC calls in
// flight (default 64), N calls after a warm-up, to /tmp/hprof/*.cpuprofile. REV=2026-07-28 for stateless.
// Prints calls/s and the server's CPU per call (read from /proc).
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createInterface } from "node:readline"
const flags = process.env.NOPROF ? [] : ["--cpu-prof", "--cpu-prof-dir=/tmp/hprof"]
const child = spawn(process.execPath, [...flags, "examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const ticks = () => { const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" "); return Number(f[11]) + Number(f[12]) }
const scope = Effect.runSync(Scope.make())
const revision = process.env.REV ?? "2025-11-25"
const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision })).pipe(Layer.provide(McpNodeHttpClient.layer({ url }))), scope))
const client = Context.get(context, McpClient.McpClient)
const N = Number(process.env.N ?? 20000), CONC = Number(process.env.CONC ?? 64)
const run = async (n) => { let next = 0; await Promise.all(Array.from({ length: CONC }, async () => { while (next++ < n) await Effect.runPromise(client.callTool("echo", { text: "hello" })) })) }
await run(Number(process.env.WARM ?? 2000))
const c0 = ticks(); const cpu0 = process.cpuUsage(); const t0 = performance.now()
await run(N)
const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0); const c1 = ticks()
console.log(`${(N / ms * 1000).toFixed(0)} calls/s, server CPU ${((c1 - c0) * 10000 / N).toFixed(0)} µs/call, client CPU ${((cpu.user + cpu.system) / N).toFixed(0)} µs/call`)
await Effect.runPromise(Scope.close(scope, Exit.void))
child.kill("SIGINT")
await new Promise((ok) => child.on("exit", ok))
process.exit(0)
