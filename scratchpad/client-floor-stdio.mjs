// The JavaScript our stdio client spends per call, without processes or pipes: McpClient over the stdio client's
// line reader and writer on two PassThroughs, answered in the same process by a canned responder (JSON.parse of the
// request, a fixed response with its id), driven as `pnpm bench` drives it (one fiber, one call after another).
// Prints µs per call (the responder's share included; RESPONDER_ONLY=1 prints the responder's cost alone).
// PROF=1 writes /tmp/client-floor.cpuprofile (INTERVAL: µs between samples, 1000 by default), ALLOC=1
// /tmp/client-floor.heapprofile (sampled allocations; scratchpad/alloc-summary.mjs reads it). SDK=1 measures SDK 1.32's Client instead, over a transport built as its
// stdio client transport is (its ReadBuffer and serializeMessage on the same PassThroughs), driven by an async loop.
import { McpClient, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { PassThrough } from "node:stream"
const LineReader = await import(new URL("../packages/node/dist/internal/readable.js", import.meta.url).href)
const Writer = await import(new URL("../packages/node/dist/internal/writer.js", import.meta.url).href)
const toServer = new PassThrough(), fromServer = new PassThrough()
let buf = ""
toServer.setEncoding("utf8")
toServer.on("data", (d) => {
  buf += d
  let i
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1)
    const m = JSON.parse(line)
    if (m.id === undefined) continue
    const result = m.method === "initialize"
      ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } }
      : { content: [{ type: "text", text: "hello" }] }
    fromServer.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\n")
  }
})
let run
if (process.env.SDK === "1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
  const { ReadBuffer, serializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js")
  const readBuffer = new ReadBuffer()
  const transport = {
    async start() {
      fromServer.on("data", (chunk) => {
        readBuffer.append(chunk)
        for (let m; (m = readBuffer.readMessage()) !== null;) transport.onmessage?.(m)
      })
    },
    async send(message) { if (!toServer.write(serializeMessage(message))) await new Promise((r) => toServer.once("drain", r)) },
    async close() {}
  }
  const client = new Client({ name: "c", version: "1" })
  await client.connect(transport)
  run = async (n) => { for (let i = 0; i < n; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } }) }
} else {
  const writer = Writer.make(toServer, "stdin")
  const transport = { receive: LineReader.receive(fromServer, "stdout"), send: (m) => writer.send(m) }
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(Effect.provideService(Transport.Transport, transport)), scope))
  run = (n) => { let i = 0; const loop = Effect.suspend(() => i++ < n ? Effect.flatMap(client.callTool("echo", { text: "hello" }), () => loop) : Effect.void); return Effect.runPromise(loop) }
}
await run(20000)
const session = new Session(); session.connect()
if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: Number(process.env.INTERVAL ?? 1000) }); await session.post("Profiler.start") }
if (process.env.ALLOC) await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
const N = Number(process.env.N ?? 50000)
const c0 = process.cpuUsage(), t0 = performance.now()
await run(N)
const ms = performance.now() - t0, c = process.cpuUsage(c0)
if (process.env.ALLOC) { const { profile } = await session.post("HeapProfiler.stopSampling"); writeFileSync("/tmp/client-floor.heapprofile", JSON.stringify(profile)) }
if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/client-floor.cpuprofile", JSON.stringify(profile)) }
console.log(`${(ms * 1000 / N).toFixed(2)} µs/call wall, CPU ${((c.user + c.system) / N).toFixed(2)} µs`)
process.exit(0)
