// Heap per live in-memory client+server pair when the pair is built from values, without Layers: a registry
// (McpServer.make) with a tool added, a session (McpServer.connect) and a client, one Scope each.
// MODE=layer measures McpTest.layer instead; MODE=sdk SDK 1.32's pair.
import { InMemoryTransport, McpClient, McpServer, McpTest, Tool, Transport } from "@effect-mcp/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport as SdkInMemory } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer as SdkServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { z } from "zod"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const N = Number(process.env.N ?? 1000)
const MODE = process.env.MODE ?? "values"
const settled = () => { for (let i = 0; i < 3; i++) gc(); return process.memoryUsage().heapUsed }
const def = { name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }
const values = async () => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(Effect.gen(function*() {
    const registry = yield* McpServer.make({ name: "bench", version: "1" })
    yield* registry.addTool(Tool.make(def, Context.empty()))
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.connect.pipe(Effect.provideService(McpServer.McpServer, registry), Effect.provideService(Transport.Transport, pair.server))
    return yield* McpClient.make({ name: "c", version: "1" }).pipe(Effect.provideService(Transport.Transport, pair.client))
  }), scope))
  await Effect.runPromise(client.callTool("echo", { text: "hello" }))
  return scope
}
const server = McpServer.tool(def).pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const layered = async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server), scope))
  await Effect.runPromise(Context.get(context, McpClient.McpClient).callTool("echo", { text: "hello" }))
  return scope
}
const sdk = async () => {
  const s = new SdkServer({ name: "bench", version: "1" })
  s.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }))
  const [ct, st] = SdkInMemory.createLinkedPair()
  await s.connect(st)
  const c = new Client({ name: "bench-client", version: "1" })
  await c.connect(ct)
  await c.callTool({ name: "echo", arguments: { text: "hello" } })
  return c
}
const make = { values, layer: layered, sdk }[MODE]
await make()
const before = settled()
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) keep.push(await make())
await new Promise((r) => setTimeout(r, 200))
const after = settled()
console.log(MODE, ((after - before) / N / 1024).toFixed(1), "KB per pair", keep.length)
