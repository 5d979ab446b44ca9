// Runs examples/everything (same argv) and samples, from SURVIVE_AFTER_MS (default 3000) for SURVIVE_FOR_MS (default
// 3000), only what survives young-generation collections (objects a scavenge had to copy), to /tmp/survivors.heapprofile.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
const session = new Session()
session.connect()
const after = Number(process.env.SURVIVE_AFTER_MS ?? 3000), span = Number(process.env.SURVIVE_FOR_MS ?? 3000)
setTimeout(() => {
  session.post("HeapProfiler.startSampling", { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false }, () => {
    setTimeout(() => session.post("HeapProfiler.stopSampling", (_e, r) => writeFileSync("/tmp/survivors.heapprofile", JSON.stringify(r.profile))), span).unref()
  })
}, after).unref()
await import("../examples/everything/dist/main.js")
