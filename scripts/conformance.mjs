// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned; on the Node 22 binary
// installed as the dev dependency `node22` of the scripts/conformance package) against effect-mcp: the `active`
// and `pending` server suites against examples/everything over Streamable HTTP, and the whole client suite against
// examples/conformance-client. It reads every scenario's checks.json, prints one table (scenario, checks
// passed, failed, warnings) and fails on any failed check outside scripts/conformance/baseline.json (only the
// client's auth/* scenarios may be listed there), or on a baseline entry that now passes.
//
// The suite's own helper servers listen on every interface, so everything (our servers, the suite, its
// helpers) runs inside a fresh network namespace that has only a loopback interface; the namespace is
// deleted at the end, also on failure. Without `ip netns` (root on Linux) the script refuses to run.
//
// Usage: node scripts/conformance.mjs   (after `tsc -b`)
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

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
  const baseline = JSON.parse(readFileSync(baselinePath, "utf8"))
  const expected = new Map(Object.entries(baseline.client ?? {}))
  for (const scenario of expected.keys()) {
    if (!scenario.startsWith("auth/")) fail(`baseline: only the client's auth/* scenarios may be listed (${scenario})`)
  }
  if (Object.keys(baseline.server ?? {}).length > 0) fail("baseline: no server scenario may be listed")

  const out = mkdtempSync(join(tmpdir(), "effect-mcp-conformance-"))
  const server = spawn(process.execPath, [everything, "--http"], { stdio: ["ignore", "pipe", "pipe"] })
  let serverLog = ""
  server.stderr.on("data", (chunk) => (serverLog += chunk))
  const url = await new Promise((ok, ko) => {
    let seen = ""
    server.stdout.on("data", (chunk) => {
      seen += chunk
      const match = /LISTENING (\S+)/.exec(seen)
      if (match) ok(match[1])
    })
    server.on("exit", (code) => ko(new Error(`examples/everything exited (${code}) before listening:\n${serverLog}`)))
  }).catch((e) => fail(e.message))

  const runSuite = (label, args) =>
    new Promise((ok) => {
      const started = Date.now()
      const run = spawn(node22, [suite, ...args, "-o", join(out, label)], { stdio: ["ignore", "pipe", "pipe"] })
      let log = ""
      run.stdout.on("data", (chunk) => (log += chunk))
      run.stderr.on("data", (chunk) => (log += chunk))
      run.on("exit", (code) => {
        if (!label.startsWith("client")) {
          process.stderr.write(`conformance: ${label} finished in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
        }
        ok({ label, code, log })
      })
    })

  const runs = [
    await runSuite("server-active", ["server", "--url", url, "--suite", "active"]),
    await runSuite("server-pending", ["server", "--url", url, "--suite", "pending"])
  ]
  server.kill("SIGTERM")

  // The client scenarios: the auth/* ones (expected to fail) four at a time, then every other one alone, so
  // that timing checks (SSE retry) are not measured on a machine busy with the others.
  const listed = spawnSync(node22, [suite, "list", "--client"], { encoding: "utf8" })
  const clientScenarios = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1])
  if (clientScenarios.length === 0) fail(`cannot list the client scenarios:\n${listed.stdout}${listed.stderr}`)
  const clientRun = (scenario) =>
    runSuite(join("client", scenario), ["client", "--command", `${process.execPath} ${client}`, "--scenario", scenario])
  const auth = clientScenarios.filter((s) => s.startsWith("auth/"))
  for (let i = 0; i < auth.length; i += 4) runs.push(...(await Promise.all(auth.slice(i, i + 4).map(clientRun))))
  for (const scenario of clientScenarios.filter((s) => !s.startsWith("auth/"))) runs.push(await clientRun(scenario))

  // ---------- every scenario's checks.json ----------
  const rows = []
  const findChecks = (dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      if (!statSync(path).isDirectory()) return name === "checks.json" ? [path] : []
      return findChecks(path)
    })
  for (const run of runs) {
    const dir = join(out, run.label)
    const files = existsSync(dir) ? findChecks(dir) : []
    if (files.length === 0) {
      rows.push({ mode: run.label, scenario: "(no results)", passed: 0, failed: 1, warnings: 0, warningText: [] })
      process.stderr.write(run.log)
      continue
    }
    for (const file of files) {
      const checks = JSON.parse(readFileSync(file, "utf8"))
      const scenario = run.label.startsWith("client")
        ? relative(join(out, "client"), dir)
        : relative(dir, dirname(file)).replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")
      const count = (status) => checks.filter((c) => c.status === status).length
      rows.push({
        mode: run.label.startsWith("server") ? run.label : "client",
        scenario,
        passed: count("SUCCESS"),
        failed: count("FAILURE"),
        warnings: count("WARNING"),
        warningText: checks.filter((c) => c.status === "WARNING" || c.status === "FAILURE").map((c) =>
          `${c.status}: ${c.name}: ${c.errorMessage ?? ""}`
        )
      })
    }
  }
  rows.sort((a, b) => (a.mode + a.scenario).localeCompare(b.mode + b.scenario))

  // ---------- the table ----------
  const header = ["suite", "scenario", "passed", "failed", "warnings", ""]
  const lines = rows.map((r) => {
    const reason = expected.get(r.scenario)
    const verdict = r.failed === 0
      ? reason === undefined ? "ok" : "STALE BASELINE (it passes now)"
      : reason === undefined
      ? "FAILED"
      : `expected: ${reason}`
    return [r.mode, r.scenario, String(r.passed), String(r.failed), String(r.warnings), verdict]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
  const format = (cells) => cells.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ")
  console.log(format(header).trimEnd())
  console.log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const line of lines) console.log(format(line).trimEnd())

  const unexpected = rows.filter((r) => r.failed > 0 && !expected.has(r.scenario))
  const stale = rows.filter((r) => r.failed === 0 && expected.has(r.scenario))
  const missing = [...expected.keys()].filter((s) => !rows.some((r) => r.scenario === s))
  const warned = rows.filter((r) => r.warnings > 0 && !expected.has(r.scenario))
  const total = (key) => rows.reduce((n, r) => n + r[key], 0)
  console.log(
    `\n${rows.length} scenarios: ${total("passed")} checks passed, ${total("failed")} failed ` +
      `(${rows.filter((r) => r.failed > 0 && expected.has(r.scenario)).length} scenarios expected to fail: ` +
      `scripts/conformance/baseline.json), ${total("warnings")} warnings`
  )
  for (const r of [...unexpected, ...warned]) {
    console.log(`\n${r.mode} ${r.scenario}:\n  ${r.warningText.join("\n  ")}`)
  }
  for (const s of missing) console.log(`baseline lists ${s}, which the suite did not run`)
  rmSync(out, { recursive: true, force: true })
  if (unexpected.length > 0 || stale.length > 0 || missing.length > 0) process.exit(1)
}
