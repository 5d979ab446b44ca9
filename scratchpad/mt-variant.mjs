// Heap per live in-memory pair built through Layers, several ways (V=cur: McpTest.layer as it is; pm: the client Layer
// provideMerge-d onto the server Layer, serve forked; pmc: the same with McpServer.connect; nbc: the server Layer built
// inside, as McpTest does, with connect in place of a forked serve; memo: built inside but in the enclosing build's
// memo map, serve forked; memoc: the same with connect; bare: the server Layer alone, built, no connection).
// Measurement only.
import { InMemoryTransport, McpClient, McpServer, McpTest, Tool, Transport } from "@effect-mcp/core"
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
const V = process.env.V ?? "cur"
const settled = () => { for (let i = 0; i < 3; i++) gc(); return process.memoryUsage().heapUsed }
const def = { name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }
const server = McpServer.tool(def).pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const client = { name: "c", version: "1" }
const variants = {
  cur: () => McpTest.layer(server),
  // provideMerge, forked serve
  pm: () => Layer.scopedContext(Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.serve.pipe(Effect.provideService(Transport.Transport, pair.server), Effect.forkScoped)
    const c = yield* McpClient.make(client).pipe(Effect.provideService(Transport.Transport, pair.client))
    return Context.make(McpClient.McpClient, c)
  })).pipe(Layer.provideMerge(server)),
  // provideMerge, connect
  pmc: () => Layer.scopedContext(Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.connect.pipe(Effect.provideService(Transport.Transport, pair.server))
    const c = yield* McpClient.make(client).pipe(Effect.provideService(Transport.Transport, pair.client))
    return Context.make(McpClient.McpClient, c)
  })).pipe(Layer.provideMerge(server)),
  // nested build, connect
  nbc: () => Layer.scopedContext(Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    const context = yield* Layer.build(server)
    yield* McpServer.connect.pipe(Effect.provideService(McpServer.McpServer, Context.get(context, McpServer.McpServer)), Effect.provideService(Transport.Transport, pair.server))
    const c = yield* McpClient.make(client).pipe(Effect.provideService(Transport.Transport, pair.client))
    return Context.add(context, McpClient.McpClient, c)
  })),
  // nested build in the enclosing memo map, forked serve / connect
  memo: () => inMemo("serve"),
  memoc: () => inMemo("connect"),
  // the server's Layers alone
  bare: () => server
}
function inMemo(session) {
  return Layer.scopedContext(Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    const context = yield* Layer.buildWithMemoMap(server, yield* Layer.CurrentMemoMap, yield* Effect.scope)
    const s = McpServer[session].pipe(Effect.provideService(McpServer.McpServer, Context.get(context, McpServer.McpServer)), Effect.provideService(Transport.Transport, pair.server))
    if (session === "serve") yield* Effect.forkScoped(s)
    else yield* s
    const c = yield* McpClient.make(client).pipe(Effect.provideService(Transport.Transport, pair.client))
    return Context.add(context, McpClient.McpClient, c)
  }))
}
const layer = variants[V]()
const make = async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  if (V !== "bare") await Effect.runPromise(Context.get(context, McpClient.McpClient).callTool("echo", { text: "hello" }))
  return scope
}
await make()
const before = settled()
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) keep.push(await make())
await new Promise((r) => setTimeout(r, 200))
const after = settled()
console.log(V, ((after - before) / N / 1024).toFixed(1), "KB per pair")
