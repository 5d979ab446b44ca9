// Runs examples/everything (same argv; GAP_MAIN=… another server module) and times the server's critical path:
// from each request's arrival (stdin `data`) to the next write on stdout's handle. On exit writes the median of the
// last 20,000 gaps to /tmp/gap-server.txt (stdout is the protocol's channel). For `scratchpad/prof-stdio-client.mjs`:
// SERVER_MAIN=scratchpad/gap-wrapper.mjs.
import { writeFileSync } from "node:fs"
const gaps = []
let readAt = 0
process.stdin.prependListener("data", () => { readAt = performance.now() })
const patch = () => {
  const handle = process.stdout._handle
  if (handle === undefined) return setImmediate(patch)
  for (const m of ["writeUtf8String", "writeBuffer", "writev", "writeLatin1String"]) {
    const f = handle[m]
    if (typeof f !== "function") continue
    handle[m] = function(...b) {
      if (readAt > 0) { gaps.push(performance.now() - readAt); readAt = 0 }
      return f.apply(this, b)
    }
  }
}
patch()
const dump = () => {
  const last = gaps.slice(-20000).sort((a, b) => a - b)
  writeFileSync("/tmp/gap-server.txt", `server read → write median ${(last[Math.floor(last.length / 2)] * 1000).toFixed(1)} µs, p10 ${(last[Math.floor(last.length / 10)] * 1000).toFixed(1)}, p90 ${(last[Math.floor(last.length * 0.9)] * 1000).toFixed(1)} (${last.length})\n`)
}
process.on("exit", dump)
process.on("SIGTERM", () => { dump(); process.exit(0) })
await import(process.env.GAP_MAIN ?? "../examples/everything/dist/main.js")
