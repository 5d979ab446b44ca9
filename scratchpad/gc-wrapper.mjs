// Runs examples/everything (same argv) and, when it exits, writes to /tmp/gc-summary.txt how many collections of
// each kind it did and how long they took (GC tracing itself would write to stdout, the protocol's channel).
import { writeFileSync } from "node:fs"
import { PerformanceObserver, constants } from "node:perf_hooks"
const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: "minor", [constants.NODE_PERFORMANCE_GC_MAJOR]: "major", [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb" }
const totals = {}
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const k = kinds[e.detail?.kind ?? e.kind] ?? "other"
    const t = (totals[k] ??= { count: 0, ms: 0 })
    t.count++
    t.ms += e.duration
  }
}).observe({ entryTypes: ["gc"] })
const dump = () => writeFileSync("/tmp/gc-summary.txt", JSON.stringify({ ...totals, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 }) + "\n")
process.on("exit", dump)
process.on("SIGTERM", () => { dump(); process.exit(0) })
await import(process.env.GC_MAIN ?? "../examples/everything/dist/main.js")
