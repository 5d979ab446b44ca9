// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned; on the Node 22 binary
// installed as the dev dependency `node22` of the scripts/conformance package) against effect-mcp: the `active`
// and `pending` server suites against examples/everything over Streamable HTTP, and every client scenario against
// examples/conformance-client; then it judges the results strictly (scripts/conformance/gate.mjs):
// - expected failures are pinned per check (scenario + check id + FAILURE or WARNING) in
//   scripts/conformance/baseline.json, only for the client's auth/* scenarios, each with why; any other failure
//   or warning fails the run, and so does a pin that no longer happens (the baseline stays tight);
// - every scenario the suite itself lists (`conformance list --server`, `--client`) must have run and written
//   results, unless the baseline's `notApplicable` says why not, and one with no pin must have a check that
//   succeeded (a scenario of INFO checks only proved nothing);
// - the suite's exit code must agree with its results: a client that timed out or exited with an error is a
//   failed check of its own (`~client-timed-out`, `~client-exited`, which can be pinned), and an exit code the
//   results do not explain fails the run (`~suite-exit`, never pinned).
// It prints a line per scenario, what is wrong with each failing one, and ends with "conformance: N passed,
// N failed" (scenarios); it exits 1 when any failed. The results directory is kept when the run fails.
//
// The suite's own helper servers listen on every interface, so everything (our servers, the suite, its
// helpers) runs inside a fresh network namespace that has only a loopback interface; the namespace is
// deleted at the end, also on failure. Without `ip netns` (root on Linux) the script refuses to run.
//
// Usage: node scripts/conformance.mjs   (after `tsc -b`)
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { checkBaseline, judge, report } from "./conformance/gate.mjs"
import { killRunning, listScenarios, readClientRun, readServerRun, runSuite } from "./conformance/suite.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const node22 = join(root, "scripts/conformance/node_modules/node22/bin/node")
const suite = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const everything = join(root, "examples/everything/dist/main.js")
const client = join(root, "examples/conformance-client/dist/main.js")
const baselinePath = join(root, "scripts/conformance/baseline.json")

const fail = (message) => {
  process.stderr.write(`conformance: ${message}\n`)
  process.exit(1)
}

if (process.argv[2] !== "--inside") {
  // ---------- outside: make a loopback-only network namespace and run again inside it ----------
  for (const [path, what] of [[node22, "the node22 dev dependency"], [suite, "@modelcontextprotocol/conformance"]]) {
    if (!existsSync(path)) fail(`${what} is not installed (${relative(root, path)}): run the install first`)
  }
  for (const path of [everything, client]) {
    if (!existsSync(path)) fail(`${relative(root, path)} is not built: run \`tsc -b\` first`)
  }
  const ns = `effect-mcp-conformance-${process.pid}`
  const ip = (...args) => spawnSync("ip", args, { encoding: "utf8" })
  const made = ip("netns", "add", ns)
  if (made.error !== undefined || made.status !== 0) {
    fail(
      `cannot create a network namespace (\`ip netns add ${ns}\`: ${
        (made.stderr || made.error?.message || "").trim()
      }).\nThe suite's helper servers listen on every interface, so it runs only inside a loopback-only ` +
        "namespace: run as root on Linux (with iproute2), e.g. in the project's CI container."
    )
  }
  const cleanup = () => ip("netns", "delete", ns)
  let child
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      child?.kill(signal)
      cleanup()
      process.exit(130)
    })
  }
  const up = ip("netns", "exec", ns, "ip", "link", "set", "lo", "up")
  if (up.status !== 0) {
    cleanup()
    fail(`cannot bring up loopback in ${ns}: ${up.stderr.trim()}`)
  }
  child = spawn("ip", ["netns", "exec", ns, process.execPath, fileURLToPath(import.meta.url), "--inside"], {
    stdio: "inherit"
  })
  child.on("exit", (code, signal) => {
    cleanup()
    process.exit(code ?? (signal === null ? 1 : 128))
  })
} else {
  await inside()
}

async function inside() {
  const listed = {}
  for (const mode of ["server", "client"]) {
    const found = listScenarios(node22, suite, mode)
    if (found.error !== undefined) fail(found.error)
    listed[mode] = found.scenarios
  }
  const { baseline, errors } = checkBaseline(JSON.parse(readFileSync(baselinePath, "utf8")), listed)
  if (errors.length > 0) {
    fail(`${relative(root, baselinePath)} is not valid:\n  ${errors.join("\n  ")}\nconformance: 0 passed, 1 failed`)
  }

  const out = mkdtempSync(join(tmpdir(), "effect-mcp-conformance-"))
  const server = spawn(process.execPath, [everything, "--http"], { stdio: ["ignore", "pipe", "pipe"] })
  let serverLog = ""
  let serverExit
  let stopping = false
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      killRunning()
      server.kill("SIGKILL")
      process.exit(130)
    })
  }
  server.stderr.on("data", (chunk) => (serverLog += chunk))
  server.on("exit", (code, signal) => {
    if (!stopping) serverExit = `examples/everything exited (${code ?? signal}) while the server suites ran`
  })
  const url = await new Promise((ok, ko) => {
    let seen = ""
    server.stdout.on("data", (chunk) => {
      seen += chunk
      const match = /LISTENING (\S+)/.exec(seen)
      if (match) ok(match[1])
    })
    server.on("exit", (code) => ko(new Error(`examples/everything exited (${code}) before listening:\n${serverLog}`)))
  }).catch((e) => fail(e.message))

  const run = (label, mode, args, limitMs) => {
    const outDir = join(out, label)
    mkdirSync(outDir, { recursive: true })
    return runSuite({ node: node22, suite, label, mode, args, outDir, limitMs })
  }
  const runs = []
  const results = []
  for (const name of ["active", "pending"]) {
    const done = await run(`server-${name}`, "server", ["server", "--url", url, "--suite", name], 300_000)
    process.stderr.write(`conformance: server-${name} finished in ${(done.ms / 1000).toFixed(1)} s\n`)
    const read = readServerRun(done)
    runs.push(read.run)
    results.push(...read.results)
  }
  stopping = true
  server.kill("SIGTERM")
  if (serverExit !== undefined) {
    const problems = [serverExit, ...serverLog.trim().split("\n").slice(-15).map((l) => `| ${l}`)]
    runs.push({
      suite: "examples/everything",
      what: "(the server under test)",
      mode: "server",
      scenarios: [],
      problems
    })
  }

  // The client scenarios: the auth/* ones (expected to fail) four at a time, then every other one alone, so that
  // timing checks (SSE retry) are not measured on a machine busy with the others. One suite process a scenario.
  const clientRun = async (scenario) => {
    const args = ["client", "--command", `${process.execPath} ${client}`, "--scenario", scenario]
    const read = readClientRun(await run(join("client", scenario), "client", args, 120_000), scenario)
    runs.push(read.run)
    results.push(...read.results)
  }
  const toRun = listed.client.filter((s) => !baseline.notApplicable.client.has(s))
  const auth = toRun.filter((s) => s.startsWith("auth/"))
  for (let i = 0; i < auth.length; i += 4) await Promise.all(auth.slice(i, i + 4).map(clientRun))
  for (const scenario of toRun.filter((s) => !s.startsWith("auth/"))) await clientRun(scenario)

  const rows = judge({ baseline, listed, results, runs })
  for (const line of report(rows)) console.log(line)
  if (rows.some((r) => !r.ok)) {
    console.log(`(the suite's results are kept in ${out})`)
    process.exit(1)
  }
  rmSync(out, { recursive: true, force: true })
}
