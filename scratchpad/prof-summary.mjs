// Summarises a .cpuprofile: self time by function (top TOP) and by package/file, as % of all samples.
import { readFileSync } from "node:fs"
const p = JSON.parse(readFileSync(process.argv[2], "utf8"))
const byId = new Map(p.nodes.map((n) => [n.id, n]))
const self = new Map()
const dt = p.timeDeltas
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (dt[i] ?? 0))
const total = [...self.values()].reduce((a, b) => a + b, 0)
const fn = new Map(), file = new Map()
for (const [id, t] of self) {
  const n = byId.get(id), cf = n.callFrame
  const url = cf.url.replace(/.*node_modules\/\.pnpm\/effect@[^/]+\/node_modules\/effect\/dist\/esm\//, "effect/").replace(/.*node_modules\/\.pnpm\/([^/]+)\/.*/, "$1").replace(/.*\/packages\//, "").replace(/^file:\/\//, "")
  const k = `${cf.functionName || "(anon)"} ${url}:${cf.lineNumber + 1}`
  fn.set(k, (fn.get(k) ?? 0) + t)
  const f = url || cf.functionName
  file.set(f, (file.get(f) ?? 0) + t)
}
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${(100 * t / total).toFixed(1).padStart(5)}% ${k}`).join("\n")
console.log(`total ${(total / 1000).toFixed(0)} ms\n-- by file\n${top(file, Number(process.env.FILES ?? 15))}\n-- by function\n${top(fn, Number(process.env.TOP ?? 30))}`)
