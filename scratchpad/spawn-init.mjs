// Spawn + initialize, interleaved: our everything server against SDK 1.32's fixture (median ms of ROUNDS each).
// `node scratchpad/spawn-init.mjs [ROUNDS]`; PROF=1 writes a CPU profile of each of our servers to /tmp/spawn-prof;
// BASE=<another checkout, built> adds that checkout's everything server as "base" (an A/B of two commits).
import { spawn } from "node:child_process"
import { join } from "node:path"
const root = join(import.meta.dirname, "..")
const servers = {
  ours: [join(root, "examples/everything/dist/main.js"), "--stdio"],
  sdk: [join(root, "examples/interop/test/fixtures/sdk1-server.mjs")],
  ...(process.env.BASE ? { base: [join(process.env.BASE, "examples/everything/dist/main.js"), "--stdio"] } : {})
}
const init = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } }
}) + "\n"
const once = (who) =>
  new Promise((resolve) => {
    const flags = process.env.PROF && who === "ours" ? ["--cpu-prof", "--cpu-prof-dir=/tmp/spawn-prof"] : []
    const t0 = performance.now()
    const child = spawn(process.execPath, [...flags, ...servers[who]], { stdio: ["pipe", "pipe", "ignore"] })
    child.stdin.write(init)
    let out = ""
    child.stdout.on("data", (d) => {
      out += d
      if (out.includes("\n")) {
        const ms = performance.now() - t0
        child.stdin.end()
        child.on("exit", () => resolve(ms))
      }
    })
  })
const rounds = Number(process.argv[2] ?? 10)
const times = Object.fromEntries(Object.keys(servers).map((who) => [who, []]))
for (let i = 0; i < rounds; i++) for (const who of Object.keys(servers)) times[who].push(await once(who))
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
for (const [who, t] of Object.entries(times)) console.log(who, median(t).toFixed(0), "ms")
console.log("ratio (sdk/ours)", (median(times.sdk) / median(times.ours)).toFixed(2))
if (times.base) console.log("ratio (sdk/base)", (median(times.sdk) / median(times.base)).toFixed(2))
