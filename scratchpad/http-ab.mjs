// A/B of our Streamable HTTP server or client between two builds of @effect-mcp/http, both loaded in this one process
// and called in alternating blocks, so that both see the same machine at the same moments (on a loaded machine,
// separate runs differ by more than the change under test). CPU µs per call of this process, medians of the blocks:
//   SIDE=server: a McpNodeHttpServer with an echo tool from each build, on 127.0.0.1, called by a bare node:http
//     client speaking MCP (a keep-alive agent): the client's share is the same for A and B;
//   SIDE=client: a McpNodeHttpClient from each build, against one examples/everything server in a child process
//     (whose CPU is not counted).
// A and B are directories holding a built `index.js` of the http package inside the repository (so that its imports
// resolve): `cp -r packages/http/dist packages/http/dist-base` before a change, then, after `pnpm build`,
// `A=packages/http/dist-base B=packages/http/dist SIDE=server node scratchpad/http-ab.mjs`. REV=2026-07-28 for
// stateless requests, CONC in flight (default 1), BLOCK calls per block (default 500), BLOCKS per side (default 12)
// after WARM calls each (default 4000). `B/A` below 1 means B costs less.
import { McpClient, McpServer } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { Agent, request } from "node:http"
import { resolve } from "node:path"
import { PerformanceObserver } from "node:perf_hooks"
import { createInterface } from "node:readline"

const REV = process.env.REV ?? "2025-11-25"
const SIDE = process.env.SIDE ?? "server"
const CONC = Number(process.env.CONC ?? 1)
const BLOCK = Number(process.env.BLOCK ?? 500)
const BLOCKS = Number(process.env.BLOCKS ?? 12)
const WARM = Number(process.env.WARM ?? 4000)
const stateless = REV >= "2026-07-28"
const builds = { A: process.env.A, B: process.env.B }
if (builds.A === undefined || builds.B === undefined) throw new Error("set A and B to two built dist directories")

let gcMs = 0
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMs += e.duration }).observe({ entryTypes: ["gc"] })

/** Runs `calls` calls of `call` with CONC workers. */
const drive = async (call, calls) => {
  let next = 0
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (next < calls) {
      next++
      await call()
    }
  }))
}

/** A bare node:http MCP client of one endpoint: `call()` makes one echo tools/call. */
const floorClient = async (url) => {
  const agent = new Agent({ keepAlive: true })
  const target = new URL(url)
  let session
  let id = 0
  const post = (message, extra = {}) =>
    new Promise((ok, ko) => {
      const body = JSON.stringify(message)
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        ...extra
      }
      if (session !== undefined) Object.assign(headers, { "mcp-session-id": session, "mcp-protocol-version": REV })
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers }, (res) => {
        const chunks = []
        res.on("data", (c) => chunks.push(c))
        res.on("end", () => ok({ headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }))
      })
      req.on("error", ko)
      req.end(body)
    })
  if (!stateless) {
    const init = await post({ jsonrpc: "2.0", id: ++id, method: "initialize", params: { protocolVersion: REV, capabilities: {}, clientInfo: { name: "ab", version: "1" } } })
    session = init.headers["mcp-session-id"]
    await post({ jsonrpc: "2.0", method: "notifications/initialized" })
  }
  const meta = { "io.modelcontextprotocol/protocolVersion": REV, "io.modelcontextprotocol/clientInfo": { name: "ab", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} }
  return async () => {
    const { text } = await post(
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text: "hello" }, ...(stateless ? { _meta: meta } : {}) } },
      stateless ? { "mcp-protocol-version": REV, "mcp-method": "tools/call", "mcp-name": "echo" } : {}
    )
    if (!text.includes("hello")) throw new Error(`unexpected answer: ${text}`)
  }
}

const scope = Effect.runSync(Scope.make())
const build = (layer) => Effect.runPromise(Layer.buildWithScope(layer, scope))
let everything
if (SIDE === "client") {
  everything = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "ignore"] })
  everything.url = await new Promise((ok) =>
    createInterface({ input: everything.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10)))
  )
}
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const calls = {}
for (const [name, dir] of Object.entries(builds)) {
  const Http = await import(resolve(dir, "index.js"))
  if (SIDE === "server") {
    const context = await build(Http.McpNodeHttpServer.layer({}, { port: 0 }).pipe(
      Layer.provideMerge(Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "ab", version: "1" }))))
    ))
    const call = await floorClient(Context.get(context, Http.McpNodeHttpServer.Address).url)
    calls[name] = (n) => drive(call, n)
  } else {
    const context = await build(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "ab", version: "1", revision: REV })).pipe(
      Layer.provide(Http.McpNodeHttpClient.layer({ url: everything.url }))
    ))
    const client = Context.get(context, McpClient.McpClient)
    // Driven as the benchmark drives ours: the fibers of one Effect program.
    calls[name] = (n) => {
      let next = 0
      const loop = Effect.suspend(() => next++ >= n ? Effect.void : Effect.flatMap(client.callTool("echo", { text: "hello" }), () => loop))
      return Effect.runPromise(Effect.forEach(Array.from({ length: CONC }), () => loop, { concurrency: CONC, discard: true }))
    }
  }
  await calls[name](WARM)
}
const results = { A: [], B: [] }
const gc = { A: 0, B: 0 }
for (let b = 0; b < BLOCKS; b++) {
  for (const name of b % 2 === 0 ? ["A", "B"] : ["B", "A"]) {
    const gc0 = gcMs
    const cpu0 = process.cpuUsage()
    await calls[name](BLOCK)
    const cpu = process.cpuUsage(cpu0)
    gc[name] += gcMs - gc0
    results[name].push((cpu.user + cpu.system) / BLOCK)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ratios = results.A.map((a, i) => results.B[i] / a)
console.log(`${SIDE} ${REV} CONC=${CONC}: A ${median(results.A).toFixed(1)} µs/call (GC ${(gc.A * 1000 / (BLOCK * BLOCKS)).toFixed(1)}), B ${median(results.B).toFixed(1)} µs/call (GC ${(gc.B * 1000 / (BLOCK * BLOCKS)).toFixed(1)}), B/A median of blocks ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`)
everything?.kill()
process.exit(0)
