// Writes two heap snapshots (before / after building N in-memory pairs that each served one call), for
// `node /tmp/snapdiff.mjs before after`. Usage: N=200 OUT=/tmp/hp node scratchpad/heap-snap-pairs.mjs
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
// Script ids in the snapshot's locations, mapped to file names (written to OUT/scripts.json).
import { Session } from "node:inspector"
import { writeFileSync } from "node:fs"
const scripts = {}
const session = new Session()
session.connect()
session.on("Debugger.scriptParsed", ({ params }) => { scripts[params.scriptId] = params.url })
session.post("Debugger.enable")
const N = Number(process.env.N ?? 200), OUT = process.env.OUT ?? "/tmp"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const make = async () => {
  const scope = Effect.runSync(Scope.make())
  const ctx = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server, process.env.REV ? { name: "c", version: "1", revision: process.env.REV } : undefined), scope))
  const client = Context.get(ctx, McpClient.McpClient)
  await Effect.runPromise(client.callTool("echo", { text: "hello" }))
  return scope
}
for (let i = 0; i < 20; i++) await make() // warm-up
for (let i = 0; i < 3; i++) gc()
writeHeapSnapshot(`${OUT}/before.heapsnapshot`)
const keep = []
for (let i = 0; i < N; i++) keep.push(await make())
for (let i = 0; i < 3; i++) gc()
writeHeapSnapshot(`${OUT}/after.heapsnapshot`)
writeFileSync(`${OUT}/scripts.json`, JSON.stringify(scripts))
console.log("kept", keep.length)
