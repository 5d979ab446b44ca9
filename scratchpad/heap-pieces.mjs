import { McpClient, McpServer, McpTest, InMemoryTransport, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Exit from "effect/Exit"
import * as Context from "effect/Context"
import * as PubSub from "effect/PubSub"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc"); const gc = runInNewContext("gc")
const heap = () => { gc(); gc(); gc(); return process.memoryUsage().heapUsed }
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "b", version: "1" })))
const N = 1000
const measure = async (label, make) => {
  const scope = Effect.runSync(Scope.make())
  const before = heap()
  const keep = []
  for (let i = 0; i < N; i++) keep.push(await Effect.runPromise(Scope.extend(make, scope)))
  console.log(label, ((heap() - before) / N / 1024).toFixed(1), "KB")
  await Effect.runPromise(Scope.close(scope, Exit.void))
}
await measure("scope only", Effect.succeed(1))
await measure("PubSub.unbounded", PubSub.unbounded())
await measure("a forked fiber", Effect.forkScoped(Effect.never))
await measure("FiberMap.make", FiberMap.make())
await measure("FiberSet.make", FiberSet.make())
await measure("McpServer.layer alone", Layer.build(McpServer.layer({ name: "b", version: "1" })))
await measure("registry", Layer.build(server))
await measure("pair (memory)", InMemoryTransport.makePair)
await measure("registry + serve", Effect.gen(function*() {
  const pair = yield* InMemoryTransport.makePair
  const ctx = yield* Layer.build(server)
  yield* McpServer.serve.pipe(Effect.provide(ctx), Effect.provideService(Transport.Transport, pair.server), Effect.forkScoped)
  return pair
}))
await measure("full McpTest 2026", Effect.gen(function*() {
  const ctx = yield* Layer.build(McpTest.layer(server))
  const c = Context.get(ctx, McpClient.McpClient); yield* c.callTool("echo", { text: "x" }); return c
}))
await measure("full McpTest 2025", Effect.gen(function*() {
  const ctx = yield* Layer.build(McpTest.layer(server, { name: "c", version: "1", revision: "2025-11-25" }))
  const c = Context.get(ctx, McpClient.McpClient); yield* c.callTool("echo", { text: "x" }); return c
}))
