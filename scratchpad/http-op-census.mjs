// Counts the Effect operations our Streamable HTTP server runs per tools/call (a 2025-11-25 session driven by the
// SDK 1.32 client, in this process): by op kind and by the source of each op's continuation. TOP=n shows more.
// PROF=1 instead profiles N=3000 calls (no census) to /tmp/http-inproc.cpuprofile and prints CPU µs per call.
import { McpServer } from "@effect-mcp/core"
import { McpHttpServer } from "@effect-mcp/http"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import { createServer } from "node:http"

let counting = false, starts = 0
const byOp = new Map(), bySource = new Map()
const sourceOf = (e) => {
  const f = [e.effect_instruction_i0, e.effect_instruction_i1, e.effect_instruction_i2].find((x) => typeof x === "function")
  return f === undefined ? "" : f.toString().replace(/\s+/g, " ").slice(0, 100)
}
class Census extends Supervisor.AbstractSupervisor {
  value = Effect.void
  onStart() { if (counting) starts++ }
  onEffect(_fiber, e) {
    if (!counting) return
    byOp.set(e._op, (byOp.get(e._op) ?? 0) + 1)
    const k = `${e._op} ${sourceOf(e)}`
    bySource.set(k, (bySource.get(k) ?? 0) + 1)
  }
}
const census = new Census()
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const layer = McpHttpServer.layer({}).pipe(
  Layer.provideMerge(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))),
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(
  process.env.PROF ? Layer.buildWithScope(layer, scope) : Layer.buildWithScope(layer, scope).pipe(Effect.supervised(census), Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)))
)
const address = Context.get(context, HttpServer.HttpServer).address
const client = new Client({ name: "c", version: "1" })
await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`)))
for (let i = 0; i < 200; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
if (process.env.PROF) {
  const { Session } = await import("node:inspector/promises")
  const { writeFileSync } = await import("node:fs")
  const session = new Session(); session.connect()
  await session.post("Profiler.enable"); await session.post("Profiler.start")
  const n = Number(process.env.N ?? 3000), cpu0 = process.cpuUsage(), t0 = performance.now()
  for (let i = 0; i < n; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
  const ms = performance.now() - t0, cpu = process.cpuUsage(cpu0)
  const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/http-inproc.cpuprofile", JSON.stringify(profile))
  console.log(`${(n / ms * 1000).toFixed(0)} calls/s, CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs per call (client and server)`)
  process.exit(0)
}
const N = 500
counting = true
for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
counting = false
const total = [...byOp.values()].reduce((a, b) => a + b, 0)
console.log(`${(total / N).toFixed(1)} ops per call, ${(starts / N).toFixed(2)} fibers started per call`)
for (const [k, v] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`${(v / N).toFixed(1).padStart(6)} ${k}`)
console.log("--- by source")
for (const [k, v] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 60))) console.log(`${(v / N).toFixed(1).padStart(6)} ${k}`)
process.exit(0)
