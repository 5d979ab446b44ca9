// A live in-memory pair's heap (1,000 alive, settled heap after full collections), with each difference between the
// memory workload and the older probes switched on its own:
// - MODE=layer|values|connection: through McpTest.layer; from values (McpServer.make, addTool, connect, McpClient.make);
//   a connection (session + client) of one registry made before the first reading.
// - DEF=shared|fresh: the tool's definition (its Schema.Struct, handler, and for MODE=layer the server's Layers) made
//   once, or per pair (as the workload's `ours()` made them until session 23).
// - ORDER=each|after: call each pair as it is made, or make them all and then call each; CALL=0: no call.
// - WARM=1: one pair made, called and closed before the first reading.
// CENSUS=1: also a census of what the pairs add, by node type and name (strings by type), per pair (TOP rows).
// SNAPSHOT=/tmp/x.heapsnapshot writes a heap snapshot with the pairs at globalThis.__keep, for heap-dominators.mjs.
import { InMemoryTransport, McpClient, McpServer, McpTest, Tool, Transport } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { readFileSync, unlinkSync } from "node:fs"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const N = Number(process.env.N ?? 1000)
const MODE = process.env.MODE ?? "layer"
const DEF = process.env.DEF ?? "shared"
const ORDER = process.env.ORDER ?? "each"
const CALL = process.env.CALL !== "0"
const settled = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}
/** Self sizes and counts of every node in a fresh heap snapshot, by type and name. */
const census = () => {
  const file = writeHeapSnapshot()
  const snap = JSON.parse(readFileSync(file, "utf8"))
  unlinkSync(file)
  const fields = snap.snapshot.meta.node_fields, types = snap.snapshot.meta.node_types[0], n = fields.length
  const [ti, ni, si] = ["type", "name", "self_size"].map((k) => fields.indexOf(k))
  const out = new Map()
  for (let i = 0; i < snap.nodes.length; i += n) {
    const type = types[snap.nodes[i + ti]]
    const key = type.endsWith("string") || type === "number" ? type : `${type} ${snap.strings[snap.nodes[i + ni]].slice(0, 60)}`
    const e = out.get(key) ?? [0, 0]
    e[0]++, e[1] += snap.nodes[i + si]
    out.set(key, e)
  }
  return out
}
const definition = () => ({
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})
const serverLayer = (def) => McpServer.tool(def).pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const sharedDef = definition()
const sharedLayer = serverLayer(sharedDef)
const clientOptions = { name: "c", version: "1" }
const connectClient = (registry) =>
  Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    yield* McpServer.connect.pipe(
      Effect.provideService(McpServer.McpServer, registry),
      Effect.provideService(Transport.Transport, pair.server)
    )
    return yield* McpClient.make(clientOptions).pipe(Effect.provideService(Transport.Transport, pair.client))
  })
const registryScope = Effect.runSync(Scope.make())
const registry = MODE === "connection"
  ? await Effect.runPromise(Scope.extend(Effect.gen(function*() {
    const registry = yield* McpServer.make({ name: "bench", version: "1" })
    yield* registry.addTool(Tool.make(sharedDef, Context.empty()))
    return registry
  }), registryScope))
  : undefined
const build = {
  layer: (scope) =>
    Effect.map(
      Layer.buildWithScope(McpTest.layer(DEF === "shared" ? sharedLayer : serverLayer(definition()), clientOptions), scope),
      (context) => Context.get(context, McpClient.McpClient)
    ),
  values: (scope) =>
    Scope.extend(
      Effect.gen(function*() {
        const registry = yield* McpServer.make({ name: "bench", version: "1" })
        yield* registry.addTool(Tool.make(DEF === "shared" ? sharedDef : definition(), Context.empty()))
        return yield* connectClient(registry)
      }),
      scope
    ),
  connection: (scope) => Scope.extend(connectClient(registry), scope)
}[MODE]
const make = async () => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(build(scope))
  return { scope, call: () => Effect.runPromise(client.callTool("echo", { text: "hello" })) }
}
if (process.env.WARM === "1") {
  const p = await make()
  await p.call()
  await Effect.runPromise(Scope.close(p.scope, Exit.void))
}
const before = settled()
const censusBefore = process.env.CENSUS === "1" ? census() : undefined
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) {
  const p = await make()
  if (CALL && ORDER === "each") await p.call()
  keep.push(p)
}
if (CALL && ORDER === "after") for (const p of keep) await p.call()
await new Promise((r) => setTimeout(r, 200)) // a connection's timeout sweeper stops 50 ms after its call
const after = settled()
console.log(
  `MODE=${MODE} DEF=${DEF} ORDER=${ORDER} WARM=${process.env.WARM ?? 0} CALL=${CALL ? 1 : 0}`,
  ((after - before) / N / 1024).toFixed(1),
  "KB per pair"
)
if (censusBefore !== undefined) {
  const now = census()
  const rows = [...now].map(([k, [c, b]]) => [k, (c - (censusBefore.get(k)?.[0] ?? 0)) / N, (b - (censusBefore.get(k)?.[1] ?? 0)) / N])
  console.log(`census: ${(rows.reduce((a, r) => a + r[2], 0) / 1024).toFixed(1)} KB per pair (self sizes)`)
  for (const [k, c, b] of rows.sort((x, y) => y[2] - x[2]).slice(0, Number(process.env.TOP ?? 40))) {
    console.log(`${b.toFixed(0).padStart(7)} B ${c.toFixed(1).padStart(6)}× ${k}`)
  }
}
if (process.env.SNAPSHOT) console.log(writeHeapSnapshot(process.env.SNAPSHOT))
