// Where a bundled start's module top levels spend their time: bundles ENTRY (built .js) with a marker at the top of
// every module, runs it with stdin closed after `initialize` + a `tools/call`, and prints the CPU time from each
// module's marker to the next, summed by package and the top modules. `node scratchpad/bundle-marks.mjs ENTRY [TOP]`
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// esbuild is a dev dependency of examples/bundled, not of the root
const { build } = createRequire(join(import.meta.dirname, "..", "examples", "bundled", "package.json"))("esbuild")
const entry = process.argv[2]
const out = join(tmpdir(), "bundle-marks.mjs")
await build({
  entryPoints: [entry], outfile: out, bundle: true, minify: true, platform: "node", format: "esm", target: "node20",
  logLevel: "warning",
  banner: { js: "import { createRequire as __r } from \"node:module\"; const require = __r(import.meta.url);" },
  plugins: [{
    name: "marks",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => ({
        contents: `globalThis.__mark?.(${JSON.stringify(args.path)});\n${readFileSync(args.path, "utf8").replace(/^#!.*/, "")}`,
        loader: "js"
      }))
    }
  }]
})
const preload = join(tmpdir(), "bundle-marks-preload.cjs")
writeFileSync(preload, `
const marks = []
let last = process.cpuUsage()
globalThis.__mark = (p) => { const c = process.cpuUsage(); marks.push([p, 0]); if (marks.length > 1) marks[marks.length - 2][1] = (c.user + c.system - last.user - last.system); last = c }
process.stdout.on("finish", () => {})
process.on("exit", () => { const c = process.cpuUsage(); if (marks.length) marks[marks.length - 1][1] = c.user + c.system - last.user - last.system; require("fs").writeFileSync(${JSON.stringify(join(tmpdir(), "marks.json"))}, JSON.stringify({ marks, total: c.user + c.system })) })
`)
const line = (o) => JSON.stringify({ jsonrpc: "2.0", ...o }) + "\n"
const input = line({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "m", version: "1" } } }) +
  line({ method: "notifications/initialized" }) + line({ id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } })
const runs = Number(process.env.RUNS ?? 5)
const sums = new Map()
const totals = []
for (let i = 0; i < runs; i++) {
  spawnSync(process.execPath, ["-r", preload, out, ...(process.argv.slice(4))], { input, stdio: ["pipe", "ignore", "inherit"] })
  const { marks, total } = JSON.parse(readFileSync(join(tmpdir(), "marks.json"), "utf8"))
  totals.push(total / 1000)
  for (const [p, us] of marks) sums.set(p, [...(sums.get(p) ?? []), us / 1000])
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const per = [...sums].map(([p, xs]) => [p.replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/.*\/packages\//, ""), median(xs)])
const last = per[per.length - 1]
const byPkg = new Map()
for (const [p, ms] of per.slice(0, -1)) { const k = p.split("/dist/")[0]; byPkg.set(k, (byPkg.get(k) ?? 0) + ms) }
console.log(`process cpu (median) ${median(totals).toFixed(0)} ms; from the last module's marker (${last[0]}) to exit ${last[1].toFixed(1)} ms`)
console.log([...byPkg].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${ms.toFixed(1).padStart(7)} ms ${k}`).join("\n"))
console.log(per.slice(0, -1).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30)).map(([k, ms]) => `${ms.toFixed(2).padStart(7)} ms ${k}`).join("\n"))
