// Workload: start-up, where a person waits (issue 32). Each row spawns a fresh process per run, interleaved, and
// reports medians:
// - spawn + initialize of an echo server written as each README shows (ours: examples/bundled, plain `tsc` output
//   and bundled with esbuild as docs/bundling.md shows, run by its launcher with V8's code cache, which the discarded
//   first round saves, and without it; the SDKs: scripts/bench/fixtures), timed from spawn to the `initialize`
//   response line, against the floor: a bare node child's first reply, and the Effect floor: a child that first
//   imports the modules of `effect` the README's server imports, unbundled (what any unbundled Effect program pays);
// - the heap in use of each of those servers after start-up (after a GC, read through an IPC preload);
// - the `effect-mcp` command: `--version`, and `call echo` against the bundled echo server, against `node -e 0`.
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const name = "startup"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const fixtures = join(root, "scripts", "bench", "fixtures")
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const servers = {
  floor: ["-e", "process.stdin.once('data', () => process.stdout.write('{}\\n'))"],
  effect: [join(fixtures, "effect-floor.mjs")],
  ours: [join(root, "examples", "bundled", "dist", "main.js")],
  bundled: [join(root, "examples", "bundled", "dist", "server.mjs")],
  uncached: [join(root, "examples", "bundled", "dist", "server.cjs")],
  v1: [join(fixtures, "sdk1-echo.mjs")],
  v2: [join(fixtures, "sdk2-echo.mjs")]
}
const initialize = `${
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
  })
}\n`

/** Spawns a server, sends `initialize`, and resolves with the ms to its first line and its heap after start-up. */
const spawnInitialize = (args) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, ["--expose-gc", "-r", join(fixtures, "heap-report.cjs"), ...args], {
      stdio: ["pipe", "pipe", "ignore", "ipc"]
    })
    child.on("error", reject)
    child.stdin.write(initialize)
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      if (out.includes("\n")) return
      out += chunk
      if (!out.includes("\n")) return
      const ms = performance.now() - t0
      child.once("message", (heap) => {
        child.kill()
        child.once("exit", () => resolve({ ms, heap }))
      })
      child.send("heap")
    })
  })

/** Runs a command to its end; resolves with its wall time in ms (rejects when it fails). */
const timed = (args) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args} exited ${code}`))))
  })

export const run = async () => {
  const spawned = Object.fromEntries(Object.keys(servers).map((who) => [who, { ms: [], heap: [] }]))
  for (let i = 0; i < RUNS + 1; i++) {
    for (const [who, args] of Object.entries(servers)) {
      const { ms, heap } = await spawnInitialize(args)
      if (i === 0) continue
      spawned[who].ms.push(ms)
      if (who !== "floor" && who !== "effect") spawned[who].heap.push(heap)
    }
  }
  const ms = Object.fromEntries(Object.entries(spawned).map(([who, s]) => [who, median(s.ms)]))
  const mb = Object.fromEntries(
    Object.entries(spawned).filter(([, s]) => s.heap.length > 0).map(([who, s]) => [who, median(s.heap) / 2 ** 20])
  )
  const rows = [{
    workload: "spawn + initialize over stdio, an echo server as each README shows (floor: a bare node child's reply)",
    ours: `${ms.ours.toFixed(0)} ms, bundled ${ms.bundled.toFixed(0)} ms (without the code cache ${
      ms.uncached.toFixed(0)
    } ms)`,
    "sdk 1.32": `${ms.v1.toFixed(0)} ms`,
    "sdk 2.4": `${ms.v2.toFixed(0)} ms`,
    floor: `${ms.floor.toFixed(0)} ms (importing effect's modules first: ${ms.effect.toFixed(0)} ms)`,
    ratio: `${(ms.v1 / ms.ours).toFixed(2)}× (bundled ${(ms.v1 / ms.bundled).toFixed(2)}×) faster than sdk 1.32; ` +
      `${(ms.ours / ms.floor).toFixed(1)}× (bundled ${(ms.bundled / ms.floor).toFixed(1)}×) the floor; ` +
      `unbundled ${(ms.ours - ms.effect).toFixed(0)} ms beyond the Effect floor`
  }, {
    workload: "heap in use after start-up (after a GC), the same servers",
    ours: `${mb.ours.toFixed(1)} MB, bundled ${mb.bundled.toFixed(1)} MB (without the code cache ${
      mb.uncached.toFixed(1)
    } MB)`,
    "sdk 1.32": `${mb.v1.toFixed(1)} MB`,
    "sdk 2.4": `${mb.v2.toFixed(1)} MB`,
    ratio: `${(mb.ours / mb.v1).toFixed(2)}× (bundled ${(mb.bundled / mb.v1).toFixed(2)}×) sdk 1.32's`
  }]
  const cli = join(root, "packages", "cli", "dist", "effect-mcp.mjs")
  const commands = {
    empty: ["-e", "0"],
    version: [cli, "--version"],
    call: [cli, "call", "echo", "--args", "{\"text\":\"hi\"}", "--", process.execPath, servers.bundled[0]]
  }
  const took = Object.fromEntries(Object.keys(commands).map((what) => [what, []]))
  for (let i = 0; i < RUNS + 1; i++) {
    for (const [what, args] of Object.entries(commands)) {
      const t = await timed(args)
      if (i > 0) took[what].push(t)
    }
  }
  const c = Object.fromEntries(Object.entries(took).map(([what, t]) => [what, median(t)]))
  rows.push({
    workload: "the effect-mcp command: --version, and call echo against the bundled echo server (floor: node -e 0)",
    ours: `--version ${c.version.toFixed(0)} ms, call ${c.call.toFixed(0)} ms`,
    floor: `${c.empty.toFixed(0)} ms`,
    ratio: `--version ${(c.version / c.empty).toFixed(1)}×, call ${(c.call / c.empty).toFixed(1)}× the floor`
  })
  return rows
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run()) process.stdout.write(`${JSON.stringify(row)}\n`)
}
