// What a 2026-07-28 request's own connection costs, in process and without HTTP: N requests each served by a new
// McpServer.serve over a one-shot transport (as McpHttpServer's stateless POST does), against N requests on one
// long-lived connection. Prints µs per request for both.
import { McpServer, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Deferred from "effect/Deferred"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const root = Effect.runSync(Scope.make())
const ctx = await Effect.runPromise(Layer.buildWithScope(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "b", version: "1" }))), root))
const server = Context.get(ctx, McpServer.McpServer)
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} }
const body = (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, _meta: meta } })
const N = Number(process.env.N ?? 5000)
const perRequest = Effect.gen(function*() {
  const incoming = Transport.unsafeMakeInbound()
  const done = yield* Deferred.make()
  const transport = { receive: incoming.receive, send: (m) => Deferred.succeed(done, m) }
  const scope = yield* Scope.make()
  yield* McpServer.serve.pipe(Effect.provideService(McpServer.McpServer, server), Effect.provideService(Transport.Transport, transport), Scope.extend(scope), Effect.forkIn(scope))
  incoming.push(Transport.frame(body(1), { revision: "2026-07-28" }))
  yield* Deferred.await(done)
  yield* Scope.close(scope, Exit.void)
})
const shared = Effect.gen(function*() {
  const incoming = Transport.unsafeMakeInbound()
  let resolve
  const transport = { receive: incoming.receive, send: (m) => Effect.sync(() => resolve(m)) }
  const scope = yield* Scope.make()
  yield* McpServer.serve.pipe(Effect.provideService(McpServer.McpServer, server), Effect.provideService(Transport.Transport, transport), Scope.extend(scope), Effect.forkIn(scope))
  return (id) => new Promise((ok) => { resolve = ok; incoming.push(Transport.frame(body(id), { revision: "2026-07-28" })) })
})
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  let t0 = performance.now()
  for (let i = 0; i < N; i++) await Effect.runPromise(perRequest)
  const a = (performance.now() - t0) * 1000 / N
  const send = await Effect.runPromise(shared)
  t0 = performance.now()
  for (let i = 0; i < N; i++) await send(i)
  const b = (performance.now() - t0) * 1000 / N
  console.log(`own connection ${a.toFixed(1)} µs/request, shared connection ${b.toFixed(1)} µs/request`)
}
process.exit(0)
