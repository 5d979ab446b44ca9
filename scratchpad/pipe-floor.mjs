// The floor of a sequential stdio round trip: a bare newline-JSON echo between two Node processes (this script
// spawns itself as the child, `child` argument), an MCP-sized request and response, no MCP library on either side.
// Prints round trips per second and each process's user and system CPU per round trip (the child's from /proc).
// CORK=1 makes the child write as our writer does (cork, uncork on the next tick).
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
if (process.argv[2] === "child") {
  let buf = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (d) => {
    buf += d
    for (let i; (i = buf.indexOf("\n")) >= 0;) {
      const m = JSON.parse(buf.slice(0, i))
      buf = buf.slice(i + 1)
      const out = JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: m.params.arguments.text }] } })
      if (process.env.CORK === "1") {
        process.stdout.cork()
        process.nextTick(() => process.stdout.uncork())
      }
      process.stdout.write(`${out}\n`)
    }
  })
} else {
  const cpuOf = (pid) => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
    return [Number(f[11]) * 1e4, Number(f[12]) * 1e4] // clock ticks of 10 ms, in µs
  }
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "child"], { stdio: ["pipe", "pipe", "inherit"] })
  const N = Number(process.env.N ?? 30000)
  let pending, buf = "", id = 0
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (d) => {
    buf += d
    for (let i; (i = buf.indexOf("\n")) >= 0;) {
      const m = JSON.parse(buf.slice(0, i))
      buf = buf.slice(i + 1)
      const p = pending
      pending = undefined
      p(m)
    }
  })
  const call = () =>
    new Promise((r) => {
      pending = r
      const request = { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } }
      child.stdin.write(`${JSON.stringify(request)}\n`)
    })
  for (let i = 0; i < 5000; i++) await call()
  const s0 = cpuOf(child.pid), c0 = process.cpuUsage(), t0 = performance.now()
  for (let i = 0; i < N; i++) await call()
  const ms = performance.now() - t0, c = process.cpuUsage(c0), s1 = cpuOf(child.pid)
  const per = (x) => (x / N).toFixed(1)
  console.log(
    `${(N / ms * 1000).toFixed(0)} round trips/s (${per(ms * 1000)} µs); parent user ${per(c.user)} sys ${per(c.system)} µs, child user ${per(s1[0] - s0[0])} sys ${per(s1[1] - s0[1])} µs`
  )
  child.kill()
}
