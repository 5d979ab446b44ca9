// A `.cpuprofile` as a timeline: per bucket of BUCKET ms (default 20), the ms busy and idle and the files that took
// the most, so that waiting (for a child, say) shows up where it happens:
// `node --cpu-prof --cpu-prof-dir=/tmp/p <command>; node scratchpad/prof-timeline.mjs /tmp/p/<file>.cpuprofile`.
import { readFileSync } from "node:fs"

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const size = Number(process.env.BUCKET ?? 20) * 1000
const buckets = []
let t = 0
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0
  t += dt
  const bucket = (buckets[Math.floor(t / size)] ??= { idle: 0, busy: 0, files: new Map() })
  const { functionName, url } = nodes.get(profile.samples[i]).callFrame
  if (functionName === "(idle)") {
    bucket.idle += dt
    continue
  }
  bucket.busy += dt
  const file = url.split("/").pop() || functionName
  bucket.files.set(file, (bucket.files.get(file) ?? 0) + dt)
}
const ms = (us) => (us / 1000).toFixed(0).padStart(3)
buckets.forEach((b, i) => {
  if (b === undefined) return
  const top = [...b.files].sort((x, y) => y[1] - x[1]).slice(0, 3).map(([f, us]) => `${f} ${ms(us).trim()}`)
  console.log(`${String((i * size) / 1000).padStart(5)} ms  busy ${ms(b.busy)}  idle ${ms(b.idle)}  ${top.join(", ")}`)
})
