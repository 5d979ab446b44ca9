// Runs every workload module in scripts/bench/ in sequence, each in a process of its own (each exports `name` and
// `run()`, which resolves to rows of { workload, ours, theirs, ratio }, and prints them as JSON lines when run as a
// script), and prints each workload's table as soon as it is done. A process per workload, because what one
// workload leaves in V8 changes the next one's numbers: after the 1,000 live pairs of the heap rows, V8 allocates
// objects from the same allocation sites straight into the old generation (allocation-site pretenuring), and our
// in-memory calls ran about 1.4x slower for the rest of the process. Benchmarks, never timed tests: absolute numbers
// drift with the machine, so every row compares against the official SDK in the same run.
// `node scripts/bench.mjs memory` runs only the workloads whose file name contains "memory". BENCH_NODE_FLAGS (e.g.
// "--no-allocation-site-pretenuring") are given to every workload process and to every server they start, ours and
// the SDKs' alike.
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const warnings = pathToFileURL(join(here, "bench-warnings.mjs")).href

/** Runs one workload file in a child process; resolves to its rows. */
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
const runWorkload = (file) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, "--import", warnings, file], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0
        ? resolve(out.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line)))
        : reject(new Error(`${file} exited with ${code}`))
    )
  })

const dir = join(here, "bench")
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
  process.stderr.write(`bench: ${file}…\n`)
  process.stdout.write(`${table(await runWorkload(join(dir, file)))}\n\n`)
}
process.stdout.write(`node ${process.version}${nodeFlags.length > 0 ? ` ${nodeFlags.join(" ")}` : ""}, ${new Date().toISOString()}\n`)
