// Runs examples/everything (same argv) and CPU-profiles it from PROFILE_AFTER_MS (default 3000) for PROFILE_FOR_MS
// (default 3000), to /tmp/server.cpuprofile: the steady state of a server under load, without its start-up.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
const session = new Session()
session.connect()
const after = Number(process.env.PROFILE_AFTER_MS ?? 3000), span = Number(process.env.PROFILE_FOR_MS ?? 3000)
setTimeout(() => {
  session.post("Profiler.enable", () => session.post("Profiler.start", () => {
    setTimeout(() => session.post("Profiler.stop", (_e, r) => writeFileSync("/tmp/server.cpuprofile", JSON.stringify(r.profile))), span).unref()
  }))
}, after).unref()
await import("../examples/everything/dist/main.js")
