// Probe: a stdio client driven from Promises, a runPromise per call against a pool of reused worker fibers.
import { McpClient, PromiseClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { join } from "node:path"
const MODE = process.env.MODE ?? "pool"
const CONC = Number(process.env.CONC ?? 64)
const N = Number(process.env.N ?? 20000)
const script = join(import.meta.dirname, "..", "examples", "everything", "dist", "main.js")
const scope = Effect.runSync(Scope.make())
const ctx = await Effect.runPromise(Layer.buildWithScope(
  McpClient.layer({ name: "p", version: "1" }).pipe(Layer.provide(StdioClientTransport.layer({ command: process.execPath, args: [script, "--stdio"] }))),
  scope))
const client = Context.get(ctx, McpClient.McpClient)
const makePool = (runtime) => {
  const jobs = [], idle = []
  const wait = Effect.suspend(() => jobs.length > 0 ? Effect.succeed(jobs.shift()) : Effect.async((resume) => { idle.push(resume) }))
  const take = process.env.YIELD ? Effect.suspend(() => jobs.length > 0 ? Effect.succeed(jobs.shift()) : Effect.zipRight(Effect.yieldNow(), wait)) : Effect.suspend(() => jobs.length > 0 ? Effect.succeed(jobs.shift()) : Effect.async((resume) => { idle.push(resume) }))
  const loop = Effect.forever(Effect.flatMap(take, (job) => Effect.matchCause(job.effect, { onSuccess: job.ok, onFailure: (c) => job.ko(Cause.squash(c)) })))
  const fork = Runtime.runFork(runtime)
  return (effect) => new Promise((ok, ko) => {
    const job = { effect, ok, ko }
    const resume = idle.pop()
    if (resume !== undefined) return resume(Effect.succeed(job))
    jobs.push(job)
    fork(loop)
  })
}
const promised = MODE === "client" ? await Effect.runPromise(Scope.extend(PromiseClient.make(client), scope)) : undefined
const run = MODE === "pool" ? makePool(Runtime.defaultRuntime) : Effect.runPromise
const call = MODE === "client" ? () => promised.callTool("echo", { text: "hello" }) : () => run(client.callTool("echo", { text: "hello" }))
const driveEffect = (n) => { let left = n; const loop = Effect.suspend(() => left-- > 0 ? Effect.flatMap(client.callTool("echo", { text: "hello" }), () => loop) : Effect.void); return Effect.runPromise(Effect.forEach(Array.from({ length: CONC }), () => loop, { concurrency: CONC, discard: true })) }
const drive = MODE === "effect" ? driveEffect : async (n) => { let left = n; await Promise.all(Array.from({ length: CONC }, async () => { while (left-- > 0) await call() })) }
await drive(5000)
const c0 = process.cpuUsage(), t0 = performance.now()
await drive(N)
const dt = performance.now() - t0, c = process.cpuUsage(c0)
console.log(`${MODE} conc ${CONC}: ${(N / dt * 1000).toFixed(0)} calls/s, client ${((c.user + c.system) / N).toFixed(1)} µs/call`)
await Effect.runPromise(Scope.close(scope, Exit.void))
