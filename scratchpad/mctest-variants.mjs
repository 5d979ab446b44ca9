// Heap per live pair for variants of how McpTest.layer could build its pair (same server Layer as the benchmark):
// V=current (McpTest.layer), V=connect (a session made with McpServer.connect, no serving fiber), V=memo (the server's
// Layers built in the enclosing build's memo map), V=both, V=nolayer (the server Layer built by Layer.build inside a
// plain scoped Effect, no outer Layer), V=bare (Layer.build of the server Layer alone, no connection).
import { InMemoryTransport, McpClient, McpServer, McpTest, Transport } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const N = Number(process.env.N ?? 1000)
const V = process.env.V ?? "current"
const settled = () => { for (let i = 0; i < 3; i++) gc(); return process.memoryUsage().heapUsed }
const def = { name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }
const server = McpServer.tool(def).pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const pairIn = (build, session) => Effect.gen(function*() {
  const pair = yield* InMemoryTransport.makePair
  const context = yield* build
  const s = McpServer[session].pipe(Effect.provideService(McpServer.McpServer, Context.get(context, McpServer.McpServer)), Effect.provideService(Transport.Transport, pair.server))
  if (session === "serve") yield* Effect.forkScoped(s)
  else yield* s
  const client = yield* McpClient.make(McpTest.defaultClient).pipe(Effect.provideService(Transport.Transport, pair.client))
  return Context.add(context, McpClient.McpClient, client)
})
const withMemo = Effect.flatMap(Layer.CurrentMemoMap, (memo) => Effect.flatMap(Effect.scope, (scope) => Layer.buildWithMemoMap(server, memo, scope)))
const variants = {
  current: McpTest.layer(server),
  connect: Layer.scopedContext(pairIn(Layer.build(server), "connect")),
  memo: Layer.scopedContext(pairIn(withMemo, "serve")),
  both: Layer.scopedContext(pairIn(withMemo, "connect"))
}
const make = async () => {
  const scope = Effect.runSync(Scope.make())
  let client
  if (V === "nolayer") client = Context.get(await Effect.runPromise(Scope.extend(pairIn(Layer.build(server), "serve"), scope)), McpClient.McpClient)
  else if (V === "bare") { await Effect.runPromise(Scope.extend(Layer.build(server), scope)); return scope }
  else client = Context.get(await Effect.runPromise(Layer.buildWithScope(variants[V], scope)), McpClient.McpClient)
  await Effect.runPromise(client.callTool("echo", { text: "hello" }))
  return scope
}
await make()
const before = settled()
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) keep.push(await make())
await new Promise((r) => setTimeout(r, 200))
console.log(V, ((settled() - before) / N / 1024).toFixed(1), "KB per pair")
