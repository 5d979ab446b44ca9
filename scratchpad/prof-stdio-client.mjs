// Profiles our stdio client (steady state, CONC in flight, default 64) against examples/everything --stdio,
// SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/sp" profiles the server too (written when it exits).
// to /tmp/stdio-client.cpuprofile.
import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
const scope = Effect.runSync(Scope.make())
const transport = StdioClientTransport.layer({ command: process.execPath, args: [...(process.env.SERVER_NODE_ARGS?.split(" ") ?? []), process.env.SERVER_MAIN ?? "examples/everything/dist/main.js", "--stdio"], stderr: "ignore" })
const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision: "2025-11-25" })).pipe(Layer.provide(transport)), scope))
const client = Context.get(context, McpClient.McpClient)
const CONC = Number(process.env.CONC ?? 64), N = Number(process.env.N ?? 20000)
const run = async (n) => { let next = 0; await Promise.all(Array.from({ length: CONC }, async () => { while (next++ < n) await Effect.runPromise(client.callTool("echo", { text: "hello" })) })) }
await run(Number(process.env.WARM ?? 5000))
const session = new Session(); session.connect()
await session.post("Profiler.enable"); await session.post("Profiler.start")
const cpu0 = process.cpuUsage(); const t0 = performance.now()
await run(N)
const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0)
const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/stdio-client.cpuprofile", JSON.stringify(profile))
console.log(`${(N / ms * 1000).toFixed(0)} calls/s, client CPU ${((cpu.user + cpu.system) / N).toFixed(1)} µs/call`)
await Effect.runPromise(Scope.close(scope, Exit.void))
process.exit(0)
