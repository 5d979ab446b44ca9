// A/B of the Streamable HTTP endpoint's own cost (McpHttpServer.handler called with in-process requests, no HTTP, as
// handler-floor.mjs does) between two builds of @effect-mcp/http loaded side by side in this one process and called
// in alternating blocks: CPU µs per tools/call, medians of the blocks. A and B as for http-ab.mjs (a directory holding
// a built `index.js` of the http package inside the repository); REV=2026-07-28 for stateless requests, BLOCK calls per
// block (default 2000), BLOCKS per side (default 12), WARM calls each first (default 5000). `B/A` below 1: B costs less.
import { McpServer } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { resolve } from "node:path"

const REV = process.env.REV ?? "2025-11-25"
const BLOCK = Number(process.env.BLOCK ?? 2000)
const BLOCKS = Number(process.env.BLOCKS ?? 12)
const WARM = Number(process.env.WARM ?? 5000)
const stateless = REV >= "2026-07-28"
const builds = { A: process.env.A, B: process.env.B }
if (builds.A === undefined || builds.B === undefined) throw new Error("set A and B to two built dist directories")

const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const scope = Effect.runSync(Scope.make())
const base = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" }
const meta = { "io.modelcontextprotocol/protocolVersion": REV, "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} }
const request = (headers, body) => ({ method: "POST", url: "/mcp", headers: { ...base, ...headers }, readText: () => Effect.succeed(body) })

const calls = {}
for (const [name, dir] of Object.entries(builds)) {
  const Http = await import(resolve(dir, "index.js"))
  const context = await Effect.runPromise(Layer.buildWithScope(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "ab", version: "1" }))), scope))
  const handle = await Effect.runPromise(Http.McpHttpServer.handler({}).pipe(Effect.provide(context), Scope.extend(scope)))
  let headers
  if (stateless) headers = { "mcp-protocol-version": REV, "mcp-method": "tools/call", "mcp-name": "echo" }
  else {
    const init = await Effect.runPromise(handle(request({}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: REV, capabilities: {}, clientInfo: { name: "c", version: "1" } } }))))
    headers = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": REV }
    await Effect.runPromise(handle(request(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))))
  }
  let id = 1
  const call = async () => {
    const params = { name: "echo", arguments: { text: "hello" }, ...(stateless ? { _meta: meta } : {}) }
    const reply = await Effect.runPromise(handle(request(headers, JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params }))))
    if (reply.status !== 200 || typeof reply.body !== "string" || !reply.body.includes("hello")) throw new Error(`unexpected answer: ${reply.status} ${reply.body}`)
  }
  calls[name] = async (n) => { for (let i = 0; i < n; i++) await call() }
  await calls[name](WARM)
}
const results = { A: [], B: [] }
for (let b = 0; b < BLOCKS; b++) {
  for (const name of b % 2 === 0 ? ["A", "B"] : ["B", "A"]) {
    const cpu0 = process.cpuUsage()
    await calls[name](BLOCK)
    const cpu = process.cpuUsage(cpu0)
    results[name].push((cpu.user + cpu.system) / BLOCK)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ratios = results.A.map((a, i) => results.B[i] / a)
console.log(`handler ${REV}: A ${median(results.A).toFixed(1)} µs/call, B ${median(results.B).toFixed(1)} µs/call, B/A median of blocks ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`)
process.exit(0)
