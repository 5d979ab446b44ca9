// Start-up A/B: spawns each given server in turn (interleaved, ROUNDS each), sends `initialize`, then
// `notifications/initialized` and a `tools/call` of `echo`, and reports medians of the wall time to each answer and of
// the child's CPU time (user + system, read through an IPC preload) at the `initialize` answer and at the call's.
// `node scratchpad/startup-ab.mjs ROUNDS name=path/to/server.mjs name2=path2 ...` (a name `floor` is a bare node child).
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const preload = join(tmpdir(), "startup-ab-cpu.cjs")
writeFileSync(preload, `process.on("message", (m) => { if (m === "cpu") { const u = process.cpuUsage(); process.send(u.user + u.system) } }); process.channel?.unref()\n`)
const rounds = Number(process.argv[2] ?? 10)
const servers = Object.fromEntries(process.argv.slice(3).map((a) => {
  const [name, ...rest] = a.split("=")
  return [name, name === "floor" ? ["-e", "process.stdin.on('data', (d) => { for (const l of String(d).split('\\n')) if (l.includes('\"id\"')) process.stdout.write('{}\\n') })"] : rest.join("=").split(" ")]
}))
const line = (o) => JSON.stringify({ jsonrpc: "2.0", ...o }) + "\n"
const initialize = line({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ab", version: "1" } } })
const call = line({ method: "notifications/initialized" }) + line({ id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } })

const once = (args) => new Promise((resolve, reject) => {
  const t0 = performance.now()
  const child = spawn(process.execPath, ["-r", preload, ...(process.env.FLAGS ? process.env.FLAGS.split(" ") : []), ...args], { stdio: ["pipe", "pipe", "inherit", "ipc"] })
  child.on("error", reject)
  const r = {}
  let buf = ""
  let lines = 0
  const cpu = () => new Promise((res) => { child.once("message", res); child.send("cpu") })
  child.stdout.setEncoding("utf8").on("data", async (d) => {
    buf += d
    while (buf.includes("\n")) {
      const i = buf.indexOf("\n")
      const l = buf.slice(0, i)
      buf = buf.slice(i + 1)
      lines++
      if (lines === 1) {
        r.initMs = performance.now() - t0
        r.initCpu = (await cpu()) / 1000
        child.stdin.write(call)
      } else if (lines === 2) {
        if (!l.includes("hi") && !l.startsWith("{}")) reject(new Error(`unexpected ${l}`))
        r.callMs = performance.now() - t0
        r.callCpu = (await cpu()) / 1000
        child.kill()
        child.once("exit", () => resolve(r))
      }
    }
  })
  child.stdin.write(initialize)
})
const results = Object.fromEntries(Object.keys(servers).map((n) => [n, []]))
for (let i = 0; i < rounds + 1; i++) for (const [n, args] of Object.entries(servers)) {
  const r = await once(args)
  if (i > 0) results[n].push(r)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
for (const [n, rs] of Object.entries(results)) {
  const m = (k) => median(rs.map((r) => r[k])).toFixed(0)
  console.log(`${n.padEnd(12)} init ${m("initMs")} ms wall, ${m("initCpu")} ms cpu; call ${m("callMs")} ms wall, ${m("callCpu")} ms cpu`)
}
