import { McpClient, McpServer, McpTest, InMemoryTransport, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Exit from "effect/Exit"
import * as Context from "effect/Context"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc"); const gc = runInNewContext("gc")
const heap = () => { gc(); gc(); gc(); return process.memoryUsage().heapUsed }
const N = 1000
const measure = async (label, make) => {
  for (let i = 0; i < 50; i++) await Effect.runPromise(Scope.extend(make, Effect.runSync(Scope.make())))
  const scope = Effect.runSync(Scope.make())
  const before = heap()
  const keep = []
  for (let i = 0; i < N; i++) keep.push(await Effect.runPromise(Scope.extend(make, scope)))
  console.log(label.padEnd(40), ((heap() - before) / N / 1024).toFixed(2), "KB")
  await Effect.runPromise(Scope.close(scope, Exit.void))
}
class T extends Context.Tag("T")() {}
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const which = process.argv[2]
const cases = {
  make: McpServer.make({ name: "b", version: "1" }),
  scopedMake: Layer.build(Layer.scoped(T, McpServer.make({ name: "b", version: "1" }))),
  layer: Layer.build(McpServer.layer({ name: "b", version: "1" })),
  scoped1: Layer.build(Layer.scoped(T, Effect.succeed(1))),
  succeed: Layer.build(Layer.succeed(T, 1)),
  two: Layer.build(Layer.merge(Layer.succeed(T, 1), Layer.succeed(McpServer.McpServer, 2))),
  registry: Layer.build(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "b", version: "1" })))),
  makeAddTool: Effect.gen(function*(){ const s = yield* McpServer.make({ name: "b", version: "1" }); return yield* Layer.build(Echo).pipe(Effect.provideService(McpServer.McpServer, s)) }),
  promise: Effect.promise(() => Promise.resolve(1)),
  cryptoKey: Effect.promise(() => globalThis.crypto.subtle.importKey("raw", globalThis.crypto.getRandomValues(new Uint8Array(32)), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])),
}
await measure(which, cases[which])
