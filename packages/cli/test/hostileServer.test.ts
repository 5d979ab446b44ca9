/**
 * A hostile server under the `effect-mcp call` command, as people run it: the built bin against a real child
 * (`schema/test/fuzz/hostileServer.mjs`, every revision in turn) whose answer to the call is what the schema-driven
 * generators make of a tools/call result (a value nested up to 10,000 deep, a string up to 1 MB or a wrong type
 * somewhere; a hostile error; or a stray line, then the valid answer). The command exits within 40 s (its request
 * timeout is 60 s): 0 with the valid answer when one followed, else 0, 1 (an error result), 3 (the answer was
 * refused) or 4 (a protocol error), saying why on stderr; never a stack trace, never a message that quotes the
 * server whole. The seed is printed; `EFFECT_MCP_FUZZ_SEED` replays it and
 * `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the runs (default 10).
 */
import { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Answers from "../../schema/test/fuzz/answers.js"
import * as Oracle from "../../schema/test/fuzz/callOracle.js"
import * as H from "../../schema/test/fuzz/hostile.js"

const bin = fileURLToPath(new URL("../dist/effect-mcp.mjs", import.meta.url))
const RUNS = H.frameCount(10)
const seed = H.seed("cli/hostileServer")
const replay = `(seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`
const bound = 40_000

/** Runs the bin; its status, output and whether it ended by itself within the bound (else it is killed). */
const run = (args: ReadonlyArray<string>) =>
  new Promise<{ status: number | null; stdout: string; stderr: string; ended: boolean }>((ok) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1" } })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => void (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c: string) => void (stderr += c))
    const timer = setTimeout(() => child.kill("SIGKILL"), bound)
    child.on("exit", (status, signal) => {
      clearTimeout(timer)
      ok({ status, stdout, stderr, ended: signal === null })
    })
  })

const stackTrace = /^\s+at .+\(.*:\d+:\d+\)$|^\s+at file:/m

describe("a hostile server under effect-mcp call", () => {
  it("each call ends at once with a status and a short message, never a stack trace", async () => {
    const problems: Array<string> = []
    for (let n = 0; n < RUNS; n++) {
      const revision = Revision.all[n % Revision.all.length]!
      const [answer] = fc.sample(Answers.hostileAnswers(revision, ["tools/call"]), { seed: seed + n, numRuns: 1 })
      const script = Answers.writeScript(Answers.script(revision, [answer!]))
      const out = await run([
        "call",
        "hostile",
        "--args",
        "{\"case\":0}",
        "--",
        process.execPath,
        Answers.fixture,
        script
      ])
      const where = `${revision} ${Oracle.describeAnswer(answer!, 0)}`
      const wrong = !out.ended
        ? `did not exit within ${bound} ms`
        : answer!.expect === "succeed" && out.status !== 0
        ? `exit ${out.status} though a valid answer followed: ${out.stderr.slice(0, 300)}`
        : ![0, 1, 3, 4].includes(out.status ?? -1)
        ? `exit ${out.status}: ${out.stderr.slice(0, 300)}`
        : (out.status === 3 || out.status === 4) && out.stderr.trim() === ""
        ? `exit ${out.status} with nothing on stderr`
        : stackTrace.test(out.stderr) || stackTrace.test(out.stdout)
        ? `a stack trace: ${out.stderr.slice(0, 300)}`
        : out.stderr.length > Oracle.maxFailureText + 1024
        ? `${out.stderr.length} chars on stderr: ${out.stderr.slice(0, 200)}`
        : undefined
      if (wrong !== undefined) problems.push(`${wrong}\n    ${where}`)
    }
    expect(problems.length === 0 ? [] : [`${problems.length} problems ${replay}`, ...problems.slice(0, 5)]).toEqual([])
  }, 300_000)
})
