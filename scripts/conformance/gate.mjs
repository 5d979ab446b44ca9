// The conformance gate's judgement, apart from running anything: it reads scripts/conformance/baseline.json and
// compares what the suite reported with it, check by check. A scenario passes the gate when every check that is
// not SUCCESS or INFO is pinned in the baseline with that status, every pin is still observed, it ran exactly once
// and (unless it has pins) at least one of its checks succeeded; a scenario the suite lists that did not run fails
// unless the baseline says why it does not apply.

/** The check ids the runner adds from the suite's exit code and log (a "~" never starts one of the suite's ids). */
export const runnerChecks = {
  clientExited: "~client-exited",
  clientTimedOut: "~client-timed-out",
  suiteExit: "~suite-exit",
  unreadable: "~results"
}
const pinnable = new Set([runnerChecks.clientExited, runnerChecks.clientTimedOut])

const modes = ["server", "client"]
const statuses = new Set(["SUCCESS", "FAILURE", "WARNING", "INFO"])
const isList = (value) => Array.isArray(value) && value.every((v) => typeof v === "string" && v.length > 0)
const isReason = (value) => typeof value === "string" && value.trim().length > 0

/** Reads the baseline's shape and its policy; returns `{ baseline, errors }` (errors: strings, empty when valid). */
export const checkBaseline = (raw, listed) => {
  const errors = []
  const baseline = {
    expected: { server: new Map(), client: new Map() },
    notApplicable: { server: new Map(), client: new Map() }
  }
  for (const mode of modes) {
    for (const [scenario, entry] of Object.entries(raw[mode] ?? {})) {
      const where = `${mode} ${scenario}`
      if (!listed[mode].includes(scenario)) errors.push(`${where}: the suite does not list this scenario`)
      if (mode !== "client" || !scenario.startsWith("auth/")) {
        errors.push(`${where}: only the client's auth/* scenarios may have expected failures`)
      }
      if (typeof entry !== "object" || entry === null || !isReason(entry.why)) {
        errors.push(`${where}: needs { "why": "...", "fails": [check ids], "warns": [check ids] }`)
        continue
      }
      const fails = entry.fails ?? []
      const warns = entry.warns ?? []
      if (!isList(fails) || !isList(warns)) errors.push(`${where}: "fails" and "warns" are lists of check ids`)
      else if (fails.length + warns.length === 0) errors.push(`${where}: pins no check`)
      else if ([...fails, ...warns].some((id) => id.startsWith("~") && !pinnable.has(id))) {
        errors.push(`${where}: of the runner's own checks, only ${[...pinnable].join(" and ")} can be pinned`)
      } else baseline.expected[mode].set(scenario, { why: entry.why, fails: new Set(fails), warns: new Set(warns) })
    }
    for (const [scenario, why] of Object.entries(raw.notApplicable?.[mode] ?? {})) {
      const where = `notApplicable ${mode} ${scenario}`
      if (!listed[mode].includes(scenario)) errors.push(`${where}: the suite does not list this scenario`)
      if (!isReason(why)) errors.push(`${where}: needs a reason`)
      if (baseline.expected[mode].has(scenario)) errors.push(`${where}: also has expected failures`)
      baseline.notApplicable[mode].set(scenario, why)
    }
  }
  for (const key of Object.keys(raw)) {
    if (!["_comment", "server", "client", "notApplicable"].includes(key)) errors.push(`unknown key ${key}`)
  }
  return { baseline, errors }
}

const describe = (check) => (check?.errorMessage ?? check?.details?.message ?? check?.description ?? "").split("\n")[0]

/** Judges one scenario's checks against its pins: `{ passed, failed, warnings, pinned, problems }`. */
export const judgeChecks = (checks, pin) => {
  const problems = []
  const seen = new Map()
  let pinned = 0
  for (const check of checks) {
    const id = typeof check?.id === "string" ? check.id : "(no id)"
    const status = check?.status
    if (!seen.has(id)) seen.set(id, new Set())
    seen.get(id).add(status)
    if (status === "SUCCESS" || status === "INFO") continue
    if (!statuses.has(status)) {
      problems.push(`check ${id} has status ${JSON.stringify(status)}, which the gate does not know`)
    } else if ((status === "FAILURE" ? pin?.fails : pin?.warns)?.has(id)) pinned++
    else problems.push(`new ${status === "FAILURE" ? "failure" : "warning"} ${id}: ${describe(check)}`)
  }
  for (const [status, ids] of [["FAILURE", pin?.fails ?? []], ["WARNING", pin?.warns ?? []]]) {
    for (const id of ids) {
      const now = seen.get(id)
      if (now?.has(status)) continue
      const state = now === undefined
        ? "is no longer reported"
        : now.has("SUCCESS")
        ? "passes now"
        : `is ${[...now].join(", ")} now`
      problems.push(`stale pin: ${id} (pinned as ${status}) ${state}: remove it from scripts/conformance/baseline.json`)
    }
  }
  const count = (status) => checks.filter((c) => c?.status === status).length
  return { passed: count("SUCCESS"), failed: count("FAILURE"), warnings: count("WARNING"), pinned, problems }
}

/**
 * Judges a whole run. `listed`: the scenarios the suite lists, per mode. `results`: one entry per checks.json read,
 * `{ mode, suite, scenario, checks }`. `runs`: one per suite process, `{ suite, mode, scenarios, notes, problems }`
 * (the scenarios it started, what its log says of those that wrote nothing, and what is wrong with its exit).
 * Returns the rows of the table, each with `ok` and `problems`.
 */
export const judge = ({ baseline, listed, results, runs }) => {
  const rows = []
  const byKey = new Map()
  for (const result of results) {
    const key = `${result.mode} ${result.scenario}`
    byKey.set(key, [...(byKey.get(key) ?? []), result])
  }
  for (const mode of modes) {
    for (const scenario of listed[mode]) {
      const found = byKey.get(`${mode} ${scenario}`) ?? []
      byKey.delete(`${mode} ${scenario}`)
      const notApplicable = baseline.notApplicable[mode].get(scenario)
      const pin = baseline.expected[mode].get(scenario)
      const ranIn = runs.filter((r) => r.mode === mode && r.scenarios.includes(scenario))
      if (found.length === 0) {
        rows.push({
          suite: ranIn[0]?.suite ?? mode,
          scenario,
          passed: 0,
          failed: 0,
          warnings: 0,
          verdict: notApplicable === undefined ? "DID NOT RUN" : `not applicable: ${notApplicable}`,
          ok: notApplicable !== undefined,
          problems: notApplicable === undefined
            ? [
              `the suite lists it but no results were written${ranIn.length === 0 ? " (no run attempted it)" : ""}`,
              ...ranIn.flatMap((r) => r.notes?.get(scenario) ?? [])
            ]
            : []
        })
        continue
      }
      const judged = judgeChecks(found.flatMap((r) => r.checks), pin)
      const problems = [...judged.problems]
      if (judged.passed === 0 && pin === undefined) problems.push("no check succeeded: it proved nothing")
      if (found.length > 1) problems.push(`it ran ${found.length} times (${found.map((r) => r.suite).join(", ")})`)
      if (notApplicable !== undefined) problems.push("it ran, yet the baseline says it does not apply: remove it there")
      const ok = problems.length === 0
      rows.push({
        suite: found[0].suite,
        scenario,
        ...judged,
        verdict: !ok ? "FAILED" : judged.pinned > 0 ? `expected (${judged.pinned} pinned): ${pin.why}` : "ok",
        ok,
        problems
      })
    }
  }
  for (const found of byKey.values()) {
    rows.push({
      suite: found[0].suite,
      scenario: found[0].scenario,
      ...judgeChecks(found.flatMap((r) => r.checks), undefined),
      verdict: "FAILED",
      ok: false,
      problems: ["the suite does not list this scenario, yet it wrote results for it"]
    })
  }
  for (const run of runs) {
    if (run.problems.length === 0) continue
    rows.push({
      suite: run.suite,
      scenario: run.what ??
        (run.mode === "client" ? `${run.scenarios[0]} (the suite's process)` : "(the suite's process)"),
      passed: 0,
      failed: 0,
      warnings: 0,
      verdict: "FAILED",
      ok: false,
      problems: run.problems
    })
  }
  return rows.sort((a, b) => (a.suite + a.scenario).localeCompare(b.suite + b.scenario))
}

/** The lines to print: the table (a line per scenario), each failing row's problems, the totals, the verdict. */
export const report = (rows) => {
  const header = ["suite", "scenario", "passed", "failed", "warnings", ""]
  const cells = rows.map((r) => [r.suite, r.scenario, ...[r.passed, r.failed, r.warnings].map(String), r.verdict])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((l) => l[i].length)))
  const format = (line) =>
    line.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ").trimEnd()
  const lines = [format(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(format)]
  const failing = rows.filter((r) => !r.ok)
  for (const r of failing) lines.push("", `${r.suite} ${r.scenario}:`, ...r.problems.map((p) => `  ${p}`))
  const total = (key) => rows.reduce((n, r) => n + (r[key] ?? 0), 0)
  const expected = rows.filter((r) => r.ok && (r.pinned ?? 0) > 0).length
  lines.push(
    "",
    `checks: ${total("passed")} succeeded, ${total("failed")} failures and ${total("warnings")} warnings, ` +
      `${total("pinned")} of them pinned in scripts/conformance/baseline.json (${expected} scenarios expected to fail)`,
    `conformance: ${rows.length - failing.length} passed, ${failing.length} failed`
  )
  return lines
}
