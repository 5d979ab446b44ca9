// Runs every workload module in scripts/bench/ in sequence (each exports `name` and `run()`, which resolves to rows
// of { workload, ours, theirs, ratio }) and prints each workload's table as soon as it is done. Benchmarks, never
// timed tests: absolute numbers drift with the machine, so every row compares against the official SDK in the
// same run. `node scripts/bench.mjs memory` runs only the workloads whose file name contains "memory".
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

// Each kind of warning once: SDK 1.32's HTTP client adds an abort listener to one signal per request (shown by
// scratchpad/abort-listeners.mjs), and Node would print a MaxListeners warning for every request past 1,500.
const warned = new Set()
process.removeAllListeners("warning")
process.on("warning", (warning) => {
  const kind = `${warning.name}: ${warning.message.replace(/\d+/g, "N")}`
  if (warned.has(kind)) return
  warned.add(kind)
  process.stderr.write(`bench: ${warning.name}: ${warning.message} (printed once)\n`)
})

const dir = join(dirname(fileURLToPath(import.meta.url)), "bench")
const only = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()

const table = (rows) => {
  // every key any row has, in first-seen order, with the ratio last
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].sort((a, b) => (a === "ratio") - (b === "ratio"))
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length)))
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`
  const body = rows.map((r) => line(columns.map((c) => r[c] ?? "")))
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...body].join("\n")
}

for (const file of files) {
  const workload = await import(pathToFileURL(join(dir, file)).href)
  process.stderr.write(`bench: ${workload.name ?? file}…\n`)
  process.stdout.write(`${table(await workload.run())}\n\n`)
}
process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`)
