// How a fresh HTTP (or stdio) server warms up: blocks of BLOCK calls (default 500) on one new connection, each
// block's calls/s and client / server CPU µs per call, for ours (examples/everything) and SDK 1.32 (the interop
// fixture), each with its own client. HOW=stdio|http (default http), CONC (default 1), BLOCKS (default 12).
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createInterface } from "node:readline"

const HOW = process.env.HOW ?? "http", CONC = Number(process.env.CONC ?? 1)
const BLOCK = Number(process.env.BLOCK ?? 500), BLOCKS = Number(process.env.BLOCKS ?? 12)
const scripts = { ours: ["examples/everything/dist/main.js", HOW === "http" ? "--http" : "--stdio"], v1: ["examples/interop/test/fixtures/sdk1-server.mjs", ...(HOW === "http" ? ["http"] : [])] }
const cpuOf = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) * 1e4 }
const childOf = (script) => readdirSync("/proc").filter((e) => /^\d+$/.test(e)).map(Number).find((pid) => {
  try { return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(script) && Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]) === process.pid } catch { return false }
})
const listen = (who) => new Promise((ok) => {
  const child = spawn(process.execPath, scripts[who], { stdio: ["ignore", "pipe", "ignore"] })
  createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok({ url: l.slice(10), pid: child.pid, stop: () => child.kill("SIGKILL") }))
})
const connect = async (who) => {
  const http = HOW === "http" ? await listen(who) : undefined
  if (who === "ours") {
    const scope = Effect.runSync(Scope.make())
    const transport = http ? McpNodeHttpClient.layer({ url: http.url }) : StdioClientTransport.layer({ command: process.execPath, args: scripts.ours, stderr: "ignore" })
    const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "c", version: "1", revision: "2025-11-25" })).pipe(Layer.provide(transport)), scope))
    const client = Context.get(context, McpClient.McpClient)
    return { pid: http?.pid ?? childOf(scripts.ours[0]), call: () => Effect.runPromise(client.callTool("echo", { text: "hello" })), close: async () => { await Effect.runPromise(Scope.close(scope, Exit.void)); http?.stop() } }
  }
  const client = new V1Client({ name: "c", version: "1" })
  await client.connect(http ? new V1Http(new URL(http.url)) : new V1Stdio({ command: process.execPath, args: scripts.v1, stderr: "ignore" }))
  return { pid: http?.pid ?? childOf(scripts.v1[0]), call: () => client.callTool({ name: "echo", arguments: { text: "hello" } }), close: async () => { await client.close(); http?.stop() } }
}
const block = async (peer) => {
  let next = 0
  const s0 = cpuOf(peer.pid), c0 = process.cpuUsage(), t0 = performance.now()
  await Promise.all(Array.from({ length: CONC }, async () => { while (next++ < BLOCK) await peer.call() }))
  const ms = performance.now() - t0, c = process.cpuUsage(c0), s = cpuOf(peer.pid) - s0
  return `${(BLOCK / ms * 1000).toFixed(0).padStart(5)}/s c${((c.user + c.system) / BLOCK).toFixed(0).padStart(5)} s${(s / BLOCK).toFixed(0).padStart(5)}`
}
console.log(`${HOW}, ${CONC} in flight, blocks of ${BLOCK} calls on one fresh connection (calls/s, client µs, server µs per call)`)
for (const round of [1, 2]) for (const who of ["ours", "v1"]) {
  const peer = await connect(who)
  const cells = []
  for (let b = 0; b < BLOCKS; b++) cells.push(await block(peer))
  await peer.close()
  console.log(`round ${round} ${who.padEnd(4)} ${cells.join(" | ")}`)
}
process.exit(0)
