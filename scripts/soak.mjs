// Soak: mixed traffic from 64 effect-mcp clients (half in 2025-11-25 sessions, half 2026-07-28 stateless) at
// examples/everything over Streamable HTTP for SOAK_SECONDS (default 600). Injected failures (a tool that
// errors, calls that time out and are cancelled) are counted apart; any other error fails the run, and so
// does memory that keeps growing: the server's live memory (its heap and external memory after a full collection,
// which `scripts/soak/server.mjs` reports when asked) and this process's heap at the end must be within 20% of where
// they were once warm (a third of the way in; judged on runs of two minutes or more). The server's resident memory
// is reported too. `pnpm soak`; docs/reliability.md.
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600)
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 64)
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const soakServer = join(root, "scripts", "soak", "server.mjs")

const log = (line) => process.stderr.write(`soak: ${line}\n`)

const rssOf = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
  return Number(line.split(/\s+/)[1]) * 1024
}

const server = spawn(process.execPath, ["--expose-gc", soakServer, "--http"], { stdio: ["ignore", "pipe", "pipe"] })
// The server's stderr passes through, but for the `HEAP` lines that answer `serverLive()`.
const heapWaiters = []
createInterface({ input: server.stderr }).on("line", (l) => {
  if (l.startsWith("HEAP ")) heapWaiters.shift()?.(Number(l.slice(5)))
  else process.stderr.write(`${l}\n`)
})
/** The server's heap and external memory after a full collection. */
const serverLive = () =>
  new Promise((ok, ko) => {
    const timer = setTimeout(() => ko(new Error("the server did not report its heap")), 30_000)
    heapWaiters.push((bytes) => {
      clearTimeout(timer)
      ok(bytes)
    })
    server.kill("SIGUSR2")
  })
// The server goes with us, however we end.
process.on("exit", () => server.kill("SIGKILL"))
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => process.exit(130))
const url = await new Promise((ok, ko) => {
  createInterface({ input: server.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10)))
  server.on("exit", (code) => ko(new Error(`the server exited with ${code}`)))
})
log(`${CLIENTS} clients at ${url} for ${SECONDS} s`)

const counts = { calls: 0, injected: 0, unexpected: 0 }
const unexpected = []

/** One operation, picked by `r` in [0, 1): mostly echo, some lists and reads, some progress, some injected failures. */
const operation = (client, r, n) => {
  if (r < 0.6) {
    return Effect.flatMap(client.callTool("echo", { text: `soak ${n}` }), (result) =>
      result.content[0]?.text === `soak ${n}` ? Effect.void : Effect.fail(new Error("echo answered wrong")))
  }
  if (r < 0.7) return client.listTools()
  if (r < 0.78) return client.readResource("test://static-text")
  if (r < 0.85) return client.getPrompt("test_simple_prompt")
  if (r < 0.9) return client.callTool("test_tool_with_progress", {}, { onProgress: () => undefined })
  if (r < 0.95) {
    return Effect.matchEffect(client.callTool("test_error_handling", {}), {
      onFailure: Effect.fail,
      onSuccess: (result) =>
        result.isError === true
          ? Effect.sync(() => counts.injected++)
          : Effect.fail(new Error("test_error_handling did not fail"))
    })
  }
  // a call that times out: the client cancels it on the wire
  return Effect.matchEffect(
    client.callTool("test_tool_with_progress", {}, { timeout: "20 millis", resetTimeoutOnProgress: false }),
    {
      onFailure: (e) => (e._tag === "RequestTimeout" ? Effect.sync(() => counts.injected++) : Effect.fail(e)),
      onSuccess: () => Effect.fail(new Error("a 20 ms call to a 100 ms tool did not time out"))
    }
  )
}

const scope = Effect.runSync(Scope.make())
// One pair of keep-alive agents for every client, as a host shares one.
const agents = await Effect.runPromise(Scope.extend(McpNodeHttpClient.agents, scope))
const clients = await Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
  const layer = Layer.scoped(
    McpClient.McpClient,
    McpClient.make({ name: `soak-${i}`, version: "1", revision: i % 2 === 0 ? "2025-11-25" : "2026-07-28" })
  ).pipe(Layer.provide(McpNodeHttpClient.layer({ url }, agents)))
  return Context.get(await Effect.runPromise(Layer.buildWithScope(layer, scope)), McpClient.McpClient)
}))

const deadline = Date.now() + SECONDS * 1000
const loop = async (client) => {
  let n = 0
  while (Date.now() < deadline) {
    const exit = await Effect.runPromiseExit(operation(client, Math.random(), n++))
    counts.calls++
    if (Exit.isFailure(exit)) {
      counts.unexpected++
      if (unexpected.length < 10) unexpected.push(String(exit.cause))
    }
  }
}

const samples = []
const every = Math.max(1000, (SECONDS * 1000) / 60)
let running = true
const sampling = (async () => {
  while (running) {
    await new Promise((ok) => setTimeout(ok, every))
    if (!running) break
    gc()
    const sample = {
      at: Date.now(),
      serverLive: await serverLive(),
      serverRss: rssOf(server.pid),
      clientHeap: process.memoryUsage().heapUsed
    }
    samples.push(sample)
    const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`
    log(
      `${counts.calls} calls, ${counts.injected} injected, ${counts.unexpected} unexpected; server live ${
        mb(sample.serverLive)
      } (resident ${mb(sample.serverRss)}), client heap ${mb(sample.clientHeap)}`
    )
  }
})()

await Promise.all(clients.map(loop))
running = false
await sampling
await Effect.runPromise(Scope.close(scope, Exit.void))
server.kill("SIGTERM")

// V8 grows its heap for a while before it settles: compare with a third of the way in (runs shorter than
// two minutes report their memory but are not judged on it).
const judged = SECONDS >= 120
const warm = samples[Math.floor(samples.length / 3)]
const last = samples[samples.length - 1]
const growth = (key) => last[key] / warm[key]
const report = {
  seconds: SECONDS,
  clients: CLIENTS,
  ...counts,
  serverLiveGrowth: Number(growth("serverLive").toFixed(3)),
  serverRssGrowth: Number(growth("serverRss").toFixed(3)),
  clientHeapGrowth: Number(growth("clientHeap").toFixed(3))
}
process.stdout.write(`${JSON.stringify(report)}\n`)
for (const u of unexpected) log(`unexpected: ${u}`)
const ok = counts.unexpected === 0 && counts.injected > 0 &&
  (!judged || (report.serverLiveGrowth < 1.2 && report.clientHeapGrowth < 1.2))
log(ok ? "passed" : "FAILED")
process.exit(ok ? 0 : 1)
