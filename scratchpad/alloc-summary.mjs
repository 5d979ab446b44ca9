// Summarises a sampled allocation profile (.heapprofile, as server-floor.mjs ALLOC=1 writes it): bytes by function
// and by file, per request when N (the requests it covered) is given.
import { readFileSync } from "node:fs"
const p = JSON.parse(readFileSync(process.argv[2], "utf8"))
const N = Number(process.env.N ?? 1)
const fn = new Map(), file = new Map()
let total = 0
const walk = (node) => {
  const cf = node.callFrame
  const url = cf.url.replace(/.*node_modules\/\.pnpm\/effect@[^/]+\/node_modules\/effect\/dist\/esm\//, "effect/").replace(/.*node_modules\/\.pnpm\/([^/]+)\/.*/, "$1").replace(/.*\/packages\//, "").replace(/^file:\/\//, "")
  const k = `${cf.functionName || "(anon)"} ${url}:${cf.lineNumber}`
  fn.set(k, (fn.get(k) ?? 0) + node.selfSize)
  file.set(url, (file.get(url) ?? 0) + node.selfSize)
  total += node.selfSize
  for (const c of node.children) walk(c)
}
walk(p.head)
const show = (m, top) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).forEach(([k, v]) => console.log(`${(v / N).toFixed(0).padStart(8)} B ${(100 * v / total).toFixed(1).padStart(5)}% ${k}`))
console.log(`total ${(total / N).toFixed(0)} B per request`)
console.log("-- by file"); show(file, 15)
console.log("-- by function"); show(fn, Number(process.env.TOP ?? 40))
