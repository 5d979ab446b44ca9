// Runs the official conformance suite's processes and reads what they leave behind: the scenarios it lists, each
// run's exit code and log, and every checks.json it writes. The suite's exit code is turned into facts the gate can
// judge: for a client scenario, a client that timed out or exited with an error becomes a check of its own
// (gate.runnerChecks), and an exit code that the results do not explain (or results that contradict an exit 0)
// becomes a failure; for a server suite, the same comparison is made for the whole run.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { runnerChecks } from "./gate.mjs"

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, "")
const tail = (text, lines = 15) => plain(text).trimEnd().split("\n").slice(-lines).map((l) => `| ${l}`)

/** The scenarios the suite itself lists for `mode` ("server" or "client"), or the reason it could not list them. */
export const listScenarios = (node, suite, mode) => {
  const listed = spawnSync(node, [suite, "list", `--${mode}`], { encoding: "utf8" })
  const scenarios = [...(listed.stdout ?? "").matchAll(/^\s+- (\S+)/gm)].map((m) => m[1])
  if (listed.status !== 0 || scenarios.length === 0) {
    return { error: `\`conformance list --${mode}\` exited ${listed.status}:\n${listed.stdout}${listed.stderr}` }
  }
  return { scenarios }
}

const live = new Set()

/** Kills every suite process still running (each runs in a process group of its own), e.g. on SIGINT. */
export const killRunning = () => {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {}
  }
}

/**
 * Runs the suite once with `args`, writing to `outDir`; kills its whole process group after `limitMs`. Resolves
 * `{ label, suite, mode, code, signal, timedOut, ms, log }` (`suite`: the label of the table's rows).
 */
export const runSuite = ({ node, suite, label, mode, args, outDir, limitMs }) =>
  new Promise((ok) => {
    const started = Date.now()
    const run = spawn(node, [suite, ...args, "-o", outDir], { stdio: ["ignore", "pipe", "pipe"], detached: true })
    let log = ""
    let timedOut = false
    live.add(run.pid)
    run.stdout.on("data", (chunk) => (log += chunk))
    run.stderr.on("data", (chunk) => (log += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-run.pid, "SIGKILL")
      } catch {}
    }, limitMs)
    run.on("close", (code, signal) => {
      clearTimeout(timer)
      live.delete(run.pid)
      const ms = Date.now() - started
      ok({ label, suite: mode === "client" ? "client" : label, mode, code, signal, timedOut, limitMs, ms, log, outDir })
    })
  })

const findChecks = (dir) =>
  !existsSync(dir) ? [] : readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (!statSync(path).isDirectory()) return name === "checks.json" ? [path] : []
    return findChecks(path)
  })

const readChecks = (file) => {
  try {
    const checks = JSON.parse(readFileSync(file, "utf8"))
    return Array.isArray(checks)
      ? checks
      : [{ id: runnerChecks.unreadable, status: "FAILURE", errorMessage: `${file}: not a list` }]
  } catch (e) {
    return [{ id: runnerChecks.unreadable, status: "FAILURE", errorMessage: `${file}: ${e.message}` }]
  }
}

const failing = (checks) => checks.some((c) => c?.status === "FAILURE" || c?.status === "WARNING")
const processProblem = (run) =>
  run.timedOut
    ? `the suite did not finish within ${run.limitMs / 1000} s and was killed`
    : run.code === null
    ? `the suite was killed by ${run.signal}`
    : undefined

/**
 * Reads one finished server-suite run: `{ results, run }`, where `run` gains `scenarios` (those it started),
 * `notes` (what its log says about a scenario that wrote no results) and `problems` (about its exit code).
 */
export const readServerRun = (run) => {
  const log = plain(run.log)
  const results = findChecks(run.outDir).map((file) => ({
    mode: "server",
    suite: run.label,
    scenario: relative(run.outDir, dirname(file)).replace(/^server-/, "").replace(
      /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/,
      ""
    ),
    checks: readChecks(file)
  }))
  const scenarios = [...log.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1])
  const notes = new Map()
  for (const m of log.matchAll(/^Failed to run scenario (\S+?): (.*)$/gm)) notes.set(m[1], [`the suite: ${m[2]}`])
  const killed = processProblem(run)
  const silent = scenarios.filter((s) => !results.some((r) => r.scenario === s))
  for (const scenario of silent) {
    if (!notes.has(scenario)) notes.set(scenario, killed === undefined ? tail(run.log) : [`it was running: ${killed}`])
  }
  const failed = silent.length > 0 || results.some((r) => r.checks.some((c) => c?.status === "FAILURE"))
  const problems = []
  if (killed !== undefined) problems.push(killed, ...tail(run.log))
  else if (run.code !== 0 && !failed) {
    problems.push(
      `the suite exited ${run.code}, yet every scenario it ran wrote results without a failure`,
      ...tail(run.log)
    )
  } else if (run.code === 0 && failed) {
    problems.push("the suite exited 0, yet a scenario it ran failed a check or wrote no results")
  }
  return { results, run: { ...run, scenarios, notes, problems } }
}

/**
 * Reads one finished client-scenario run. A client that timed out or exited with an error (as the suite reports
 * it) is added to the scenario's checks as a FAILURE, so the baseline can pin it like any check; an exit code
 * that disagrees with the checks adds an unpinnable `~suite-exit` failure.
 */
export const readClientRun = (run, scenario) => {
  const log = plain(run.log)
  const files = findChecks(run.outDir)
  const results = files.map((file) => ({ mode: "client", suite: "client", scenario, checks: readChecks(file) }))
  const problems = []
  const killed = processProblem(run)
  if (killed !== undefined) problems.push(killed, ...tail(run.log))
  const notes = new Map(
    files.length === 0 ? [[scenario, killed === undefined ? tail(run.log) : ["it was running"]]] : []
  )
  if (results.length === 1 && killed === undefined) {
    const checks = results[0].checks
    const stderr = join(dirname(files[0]), "stderr.txt")
    const said = existsSync(stderr) ? plain(readFileSync(stderr, "utf8")).trim().split("\n")[0] : ""
    const exited = /CLIENT EXITED WITH ERROR \(code (-?\d+)\)/.exec(log)
    if (exited !== null) {
      checks.push({
        id: runnerChecks.clientExited,
        status: "FAILURE",
        errorMessage: `the client exited with code ${exited[1]}${said === "" ? "" : `: ${said}`}`
      })
    }
    if (/CLIENT TIMED OUT/.test(log)) {
      checks.push({ id: runnerChecks.clientTimedOut, status: "FAILURE", errorMessage: "the suite's client timeout" })
    }
    if (run.code !== 0 && !failing(checks)) {
      checks.push({
        id: runnerChecks.suiteExit,
        status: "FAILURE",
        errorMessage: `the suite exited ${run.code}, yet no check failed or warned and the client ended well: ${
          tail(run.log, 5).join(" ")
        }`
      })
    } else if (run.code === 0 && failing(checks)) {
      checks.push({
        id: runnerChecks.suiteExit,
        status: "FAILURE",
        errorMessage: "the suite exited 0, yet a check failed or warned (its results do not match its verdict)"
      })
    }
  }
  return { results, run: { ...run, scenarios: [scenario], notes, problems } }
}
