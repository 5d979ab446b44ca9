// What 1,000 live in-memory client+server pairs (McpTest, as the memory bench builds them) hold, by object kind:
// heap snapshots before and after, self sizes summed per constructor name, per pair. SDK=1 measures SDK 1.32's pairs.
import { InMemoryTransport, McpClient, McpServer, McpTest, Tool, Transport } from "@effect-mcp/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport as SdkInMemory } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer as SdkServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { readFileSync, unlinkSync } from "node:fs"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
import { z } from "zod"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const N = Number(process.env.N ?? 1000)
const census = () => {
  for (let i = 0; i < 3; i++) gc()
  const file = writeHeapSnapshot()
  const snap = JSON.parse(readFileSync(file, "utf8"))
  unlinkSync(file)
  const f = snap.snapshot.meta.node_fields, types = snap.snapshot.meta.node_types[0], n = f.length
  const [ti, ni, si] = ["type", "name", "self_size"].map((k) => f.indexOf(k))
  const out = new Map()
  for (let i = 0; i < snap.nodes.length; i += n) {
    const type = types[snap.nodes[i + ti]]
    const key = type === "object" || type === "closure" ? `${type} ${snap.strings[snap.nodes[i + ni]]}` : type
    const e = out.get(key) ?? [0, 0]
    e[0]++, e[1] += snap.nodes[i + si]
    out.set(key, e)
  }
  return out
}
// The tool's definition is made once, as a program defines it; a pair is what each connection to it costs.
const echo = { name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) }
const Echo = McpServer.tool(echo)
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
// SHARED=1: the server Layer is built once, and each pair is a client connected to it over its own in-memory pair,
// as the sessions of one long-running server are.
const sharedScope = Effect.runSync(Scope.make())
const sharedServer = process.env.SHARED === "1" ? await Effect.runPromise(Layer.buildWithScope(server, sharedScope)) : undefined
const oursShared = async () => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.connect.pipe(Effect.provide(sharedServer), Effect.provideService(Transport.Transport, pair.server))
    return yield* McpClient.make({ name: "c", version: "1" }).pipe(Effect.provideService(Transport.Transport, pair.client))
  }), scope))
  await Effect.runPromise(client.callTool("echo", { text: "hello" }))
  return scope
}
// VALUES=1: each pair built from values, with no Layer (McpServer.make, addTool, connect, McpClient.make).
const oursValues = async () => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(Effect.gen(function*() {
    const registry = yield* McpServer.make({ name: "bench", version: "1" })
    yield* registry.addTool(Tool.make(echo, Context.empty()))
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.connect.pipe(Effect.provideService(McpServer.McpServer, registry), Effect.provideService(Transport.Transport, pair.server))
    return yield* McpClient.make({ name: "c", version: "1" }).pipe(Effect.provideService(Transport.Transport, pair.client))
  }), scope))
  await Effect.runPromise(client.callTool("echo", { text: "hello" }))
  return scope
}
const ours = process.env.VALUES === "1" ? oursValues : process.env.SHARED === "1" ? oursShared : async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server), scope))
  await Effect.runPromise(Context.get(context, McpClient.McpClient).callTool("echo", { text: "hello" }))
  return scope
}
const theirs = async () => {
  const s = new SdkServer({ name: "bench", version: "1" })
  s.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }))
  const [ct, st] = SdkInMemory.createLinkedPair()
  await s.connect(st)
  const c = new Client({ name: "bench-client", version: "1" })
  await c.connect(ct)
  await c.callTool({ name: "echo", arguments: { text: "hello" } })
  return c
}
await (process.env.SDK === "1" ? theirs() : ours())
const before = census()
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) keep.push(await (process.env.SDK === "1" ? theirs() : ours()))
await new Promise((r) => setTimeout(r, 200)) // idle pairs: timeout sweepers have stopped
const after = census()
const rows = [...after].map(([k, [c, s]]) => [k, (c - (before.get(k)?.[0] ?? 0)) / N, (s - (before.get(k)?.[1] ?? 0)) / N])
const total = rows.reduce((a, r) => a + r[2], 0)
console.log(`total ${(total / 1024).toFixed(1)} KB per pair (self sizes)`)
for (const [k, c, s] of rows.sort((a, b) => b[2] - a[2]).slice(0, Number(process.env.TOP ?? 45))) console.log(`${s.toFixed(0).padStart(7)} B ${c.toFixed(1).padStart(6)}× ${k}`)
console.log(keep.length)
if (process.env.SNAPSHOT) console.log(writeHeapSnapshot(process.env.SNAPSHOT))
