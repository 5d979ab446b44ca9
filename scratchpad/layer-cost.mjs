// What Effect's Layer bookkeeping keeps per build, with no MCP in it: 2,000 builds of one Layer alive at once, each in
// a Scope of its own, heap after full collections per build. V=scope (a Scope alone), one (Layer.scoped), succeed
// (Layer.succeed), pm (two scoped Layers composed as the README composes a tool with McpServer.layer: provideMerge),
// merge2 (Layer.merge of two), provide (Layer.provide). SNAPSHOT=<file> writes a heap snapshot for heap-dominators.mjs.
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const settled = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}
const A = Context.GenericTag("A"), B = Context.GenericTag("B")
const a = Layer.scoped(A, Effect.succeed({ a: 1 }))
const needsA = Layer.scopedDiscard(Effect.flatMap(A, () => Effect.void))
const layers = {
  scope: undefined,
  one: a,
  succeed: Layer.succeed(A, { a: 1 }),
  pm: needsA.pipe(Layer.provideMerge(a)),
  merge2: Layer.merge(a, Layer.scoped(B, Effect.succeed({}))),
  provide: needsA.pipe(Layer.provide(a))
}
const V = process.env.V ?? "one"
const layer = layers[V]
const N = Number(process.env.N ?? 2000)
const make = async () => {
  const scope = Effect.runSync(Scope.make())
  if (layer !== undefined) await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return scope
}
await make()
const before = settled()
const keep = (globalThis.__keep = [])
for (let i = 0; i < N; i++) keep.push(await make())
console.log(`${V}: ${((settled() - before) / N).toFixed(0)} B per build`)
if (process.env.SNAPSHOT) writeHeapSnapshot(process.env.SNAPSHOT)
