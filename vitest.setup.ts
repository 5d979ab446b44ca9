import { appendFileSync, readFileSync } from "node:fs"
import { afterAll, afterEach, expect } from "vitest"

// Synchronous test files (the schema property sweeps) never give the worker's event loop a turn, so vitest's
// own RPC replies sit unread until its fixed 60 s timeout fires and the run exits 1 with every test green.
// One macrotask after each test lets the worker read them.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** The CPU seconds (user and system) of this process and of its reaped children so far, from /proc (Linux). */
const cpuSoFar = (): readonly [own: number, children: number] => {
  // Fields after the command's name: state is the 3rd field; utime, stime, cutime, cstime the 14th to 17th.
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
  const seconds = (field: number) => Number(fields[field - 3]) / 100
  return [seconds(14) + seconds(15), seconds(16) + seconds(17)]
}

// EFFECT_MCP_TEST_CPU=<file> (Linux): where the suite's time goes on a loaded machine, where wall-clock durations
// mean little. After each test file, one line is appended: the file, the CPU seconds its worker spent on it (its
// imports included) and those of the child processes it started (once reaped), tab-separated.
const cpuLog = process.env.EFFECT_MCP_TEST_CPU
if (cpuLog !== undefined) {
  afterAll(() => {
    // A worker that runs several files keeps the previous file's total on `process`, which outlives its modules.
    const worker = process as { effectMcpCpu?: readonly [number, number] }
    const [own, children] = cpuSoFar()
    const [ownBefore, childrenBefore] = worker.effectMcpCpu ?? [0, 0]
    worker.effectMcpCpu = [own, children]
    appendFileSync(
      cpuLog,
      `${expect.getState().testPath}\t${(own - ownBefore).toFixed(2)}\t${(children - childrenBefore).toFixed(2)}\n`
    )
  })
}
