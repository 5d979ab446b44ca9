// The JavaScript a stdio server spends on one large request, without processes or pipes: StdioServerTransport.make
// over two PassThroughs, an echo tool, a text of SIZE bytes (default 1 MB) echoed N times (default 100), one at a
// time, each awaited until its whole response line is out. Prints ms per request; PROF=1 writes
// /tmp/big-floor.cpuprofile. The input is written in 64 KB chunks, as a pipe delivers it.
import { McpServer, Tool, Transport } from "@effect-mcp/core"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { PassThrough } from "node:stream"

const input = new PassThrough(), output = new PassThrough()
const scope = Effect.runSync(Scope.make())
await Effect.runPromise(Scope.extend(
  Effect.gen(function*() {
    const registry = yield* McpServer.make({ name: "bench", version: "1" })
    yield* registry.addTool(
      Tool.make({
        name: "echo",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }) => Effect.succeed(text)
      }, Context.empty())
    )
    yield* McpServer.connect.pipe(
      Effect.provideService(McpServer.McpServer, registry),
      Effect.provideService(Transport.Transport, StdioServerTransport.make(input, output))
    )
  }),
  scope
))
let waiting, got = []
output.on("data", (d) => {
  got.push(d)
  if (d.includes(10)) {
    const w = waiting
    waiting = undefined
    const all = Buffer.concat(got).toString()
    got = []
    w?.(all)
  }
})
const send = (o) =>
  new Promise((r) => {
    waiting = r
    const line = Buffer.from(JSON.stringify(o) + "\n")
    for (let i = 0; i < line.length; i += 65536) input.write(line.subarray(i, i + 65536))
  })
await send({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }
})
input.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
const text = "x".repeat(Number(process.env.SIZE ?? 1 << 20))
let id = 1
const call = () => send({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: "echo", arguments: { text } } })
const run = async (n) => {
  for (let i = 0; i < n; i++) await call()
}
const first = await call()
console.log(first.length, "bytes", first.slice(0, 80))
await run(10)
const session = new Session()
session.connect()
if (process.env.PROF) {
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
}
const N = Number(process.env.N ?? 100)
const c0 = process.cpuUsage(), t0 = performance.now()
await run(N)
const ms = performance.now() - t0, c = process.cpuUsage(c0)
if (process.env.PROF) {
  const { profile } = await session.post("Profiler.stop")
  writeFileSync("/tmp/big-floor.cpuprofile", JSON.stringify(profile))
}
console.log(`${(ms / N).toFixed(2)} ms/request wall, CPU ${((c.user + c.system) / N / 1000).toFixed(2)} ms`)
process.exit(0)
