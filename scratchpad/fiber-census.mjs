// Builds one in-memory pair (REV=revision), makes a call, waits 300 ms, then prints every fiber still running
// under it with the top of its stack: which fibers a live connection holds.
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const sup = Effect.runSync(Supervisor.track)
const scope = Effect.runSync(Scope.make())
const ctx = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server, process.env.REV ? { name: "c", version: "1", revision: process.env.REV } : undefined), scope).pipe(Effect.supervised(sup)))
const client = Context.get(ctx, McpClient.McpClient)
await Effect.runPromise(client.callTool("echo", { text: "hello" }))
await new Promise((r) => setTimeout(r, 300))
const fibers = Effect.runSync(sup.value)
console.log("fibers", fibers.length)
for (const f of fibers) {
  console.log("---", f.id().id, f._exitValue === null ? "running" : "done")
  for (const op of (f._stack ?? []).slice(-5)) console.log("   ", String(op?.effect_instruction_i1 ?? op?.effect_instruction_i2 ?? op?._op).replace(/\s+/g, " ").slice(0, 160))
}
