import { McpClient, McpServer, McpTest, InMemoryTransport, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Context from "effect/Context"
import { writeHeapSnapshot } from "node:v8"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "b", version: "1" })))
const cases = {
  make: McpServer.make({ name: "b", version: "1" }),
  registry: Layer.build(server),
  mctest: Effect.gen(function*() { const ctx = yield* Layer.build(McpTest.layer(server)); yield* Context.get(ctx, McpClient.McpClient).callTool("echo", { text: "x" }); return ctx }),
}
globalThis.__keep = []
for (let i = 0; i < 50; i++) {
  const scope = Effect.runSync(Scope.make())
  const value = await Effect.runPromise(Scope.extend(cases[process.argv[2]], scope))
  __keep.push({ scope, value })
}
await new Promise((r) => setTimeout(r, 200))
writeHeapSnapshot("/tmp/hd/case.heapsnapshot")
