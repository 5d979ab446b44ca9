// Mutation testing of the security- and protocol-critical modules (see stryker.config.mjs and docs/mutation.md):
// runs Stryker once per group, then prints each module's mutation score and each group's running time.
//   node scripts/mutation.mjs [group...] [-- stryker options, e.g. --incremental]
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { groups } from "../stryker.config.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const dash = process.argv.indexOf("--")
const names = (dash === -1 ? process.argv.slice(2) : process.argv.slice(2, dash))
const extra = dash === -1 ? [] : process.argv.slice(dash + 1)
const chosen = names.length === 0 ? Object.keys(groups) : names
for (const name of chosen) {
  if (!(name in groups)) {
    process.stderr.write(`no mutation group ${name} (one of ${Object.keys(groups).join(", ")})\n`)
    process.exit(2)
  }
}

/** Killed (or timed out, a mutant that made its tests hang) over all valid mutants, as Stryker counts it. */
const score = (mutants) => {
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length
  const detected = count("Killed", "Timeout")
  const valid = detected + count("Survived", "NoCoverage")
  return { detected, valid, survived: count("Survived"), noCoverage: count("NoCoverage") }
}

const rows = []
let failed = false
for (const name of chosen) {
  const started = Date.now()
  const run = spawnSync(join(root, "node_modules", ".bin", "stryker"), ["run", "stryker.config.mjs", ...extra], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, MUTATION_GROUP: name }
  })
  const seconds = Math.round((Date.now() - started) / 1000)
  if (run.status !== 0) {
    failed = true
    rows.push(`${name}: Stryker exited with ${run.status ?? run.signal} after ${seconds} s`)
    continue
  }
  const report = JSON.parse(readFileSync(join(root, "reports", "mutation", `${name}.json`), "utf8"))
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const s = score(mutants)
    const pct = s.valid === 0 ? "n/a" : `${(100 * s.detected / s.valid).toFixed(2)}%`
    rows.push(
      `${name}: ${file}: ${pct} (${s.detected}/${s.valid} detected, ${s.survived} survived, ${s.noCoverage} no coverage)`
    )
  }
  rows.push(`${name}: ${Math.floor(seconds / 60)} min ${seconds % 60} s`)
}
process.stdout.write(`\nmutation scores (reports in reports/mutation/):\n${rows.map((r) => `  ${r}`).join("\n")}\n`)
process.exit(failed ? 1 : 0)
