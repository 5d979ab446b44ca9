// Counts the Effect operations one in-memory tools/call runs (client and server fibers together), by op kind and by
// the source of the continuation or thunk each carries: where the per-call interpreter work (and garbage) comes from.
// REV=2025-11-25 picks a handshake revision; TOP=n shows more sources.
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"

let counting = false
const byOp = new Map(), bySource = new Map()
const sourceOf = (e) => {
  const f = [e.effect_instruction_i0, e.effect_instruction_i1, e.effect_instruction_i2].find((x) => typeof x === "function")
  return f === undefined ? "" : f.toString().replace(/\s+/g, " ").slice(0, 90)
}
class Census extends Supervisor.AbstractSupervisor {
  value = Effect.void
  onEffect(_fiber, e) {
    if (!counting) return
    byOp.set(e._op, (byOp.get(e._op) ?? 0) + 1)
    const k = `${e._op} ${sourceOf(e)}`
    bySource.set(k, (bySource.get(k) ?? 0) + 1)
  }
}
const census = new Census()
const supervised = (eff) =>
  eff.pipe(Effect.supervised(census), Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)))
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(supervised(Layer.buildWithScope(McpTest.layer(server, { name: "c", version: "1", ...(process.env.REV ? { revision: process.env.REV } : {}) }), scope)))
const client = Context.get(context, McpClient.McpClient)
for (let i = 0; i < 100; i++) await Effect.runPromise(supervised(client.callTool("echo", { text: "hello" })))
const N = 1000
counting = true
for (let i = 0; i < N; i++) await Effect.runPromise(supervised(client.callTool("echo", { text: "hello" })))
counting = false
const total = [...byOp.values()].reduce((a, b) => a + b, 0)
console.log(`${(total / N).toFixed(1)} ops per call`)
for (const [k, v] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`${(v / N).toFixed(1).padStart(6)} ${k}`)
console.log("--- by source")
for (const [k, v] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 60))) console.log(`${(v / N).toFixed(1).padStart(6)} ${k}`)
process.exit(0)
