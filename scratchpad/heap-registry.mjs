// Heap of the pieces of a server registry, 1,000 of each alive at once.
import { McpServer } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc"); const gc = runInNewContext("gc")
const heap = () => { gc(); gc(); gc(); return process.memoryUsage().heapUsed }
const N = 1000
const measure = async (label, make) => {
  const scope = Effect.runSync(Scope.make())
  const before = heap()
  const keep = []
  for (let i = 0; i < N; i++) keep.push(await Effect.runPromise(Scope.extend(make, scope)))
  console.log(label.padEnd(28), ((heap() - before) / N / 1024).toFixed(1), "KB")
  await Effect.runPromise(Scope.close(scope, Exit.void))
}
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
await measure("McpServer.layer", Layer.build(McpServer.layer({ name: "b", version: "1" })))
await measure("McpServer.layer + echo tool", Layer.build(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "b", version: "1" })))))
await measure("PubSub.unbounded", PubSub.unbounded())
await measure("Effect.forkScoped(never)", Effect.forkScoped(Effect.never))
