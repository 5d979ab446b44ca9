/**
 * A hostile server under McpHost: for every revision, the host runs a real child (`schema/test/fuzz/hostileServer.mjs`)
 * that answers each call of its `hostile` tool as the schema-driven generators say (a result with a value nested up
 * to 10,000 deep, a string up to 1 MB or a wrong type somewhere; a hostile error; a stray line, then the valid
 * answer), while a call of its `echo` tool runs on the same connection at the same time. The hostile call settles
 * within 20 s (60 s request timeout), a success when the valid answer followed, else a success or a typed failure
 * with a bounded message; the echo always succeeds; the server is never restarted (same pid, still up). The seed
 * is printed; `EFFECT_MCP_FUZZ_SEED` replays it and `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the calls per revision
 * (default 12).
 */
import { McpHost } from "@effect-mcp/host"
import { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import * as Answers from "../../schema/test/fuzz/answers.js"
import * as Oracle from "../../schema/test/fuzz/callOracle.js"
import * as H from "../../schema/test/fuzz/hostile.js"

const CASES = H.frameCount(12)
const seed = H.seed("host/hostileServer")
const replay = `(seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`

describe("a hostile server under McpHost", () => {
  Revision.all.forEach((revision, r) => {
    it.scopedLive(`${revision}: hostile answers settle at once, typed; the connection's other calls work`, () => {
      const logs = Oracle.logCapture()
      return Effect.gen(function*() {
        const answers = fc.sample(Answers.hostileAnswers(revision, ["tools/call"]), { seed: seed + r, numRuns: CASES })
        const host = yield* McpHost.make({
          servers: {
            h: {
              command: process.execPath,
              args: [Answers.fixture, Answers.writeScript(Answers.script(revision, answers))]
            }
          },
          healthCheck: false,
          requestTimeout: Oracle.requestTimeout,
          stderr: "ignore"
        })
        // Up and listed: the event says so (the host replays its events to a new subscriber).
        yield* host.events.pipe(
          Stream.filter((e) => e._tag === "CatalogueChanged" && e.tools > 0),
          Stream.runHead,
          Effect.timeout("30 seconds")
        )
        const [before] = yield* host.statuses
        expect(before).toMatchObject({ state: "Up", revision })
        const problems: Array<string> = []
        for (const [n, answer] of answers.entries()) {
          const [hostile, echo] = yield* Effect.all([
            host.callTool("h__hostile", { case: n }).pipe(Effect.timeout(Oracle.settleWithin), Effect.exit),
            host.callTool("h__echo", { text: `echo ${n}` }).pipe(Effect.timeout(Oracle.settleWithin), Effect.exit)
          ], { concurrency: 2 })
          const wrong = Oracle.judgeCall(answer, hostile)
          if (wrong !== undefined) problems.push(`${wrong}\n    ${Oracle.describeAnswer(answer, n)}`)
          if (
            echo._tag === "Failure" ||
            JSON.stringify(echo.value.content) !== JSON.stringify([{ type: "text", text: `echo ${n}` }])
          ) {
            problems.push(`the echo beside it did not come back\n    ${Oracle.describeAnswer(answer, n)}`)
          }
        }
        expect(
          problems.length === 0 ? [] : [`${problems.length} problems ${replay}`, ...problems.slice(0, 5)],
          revision
        ).toEqual(
          []
        )
        const [after] = yield* host.statuses
        expect(after, `${revision}: the server was restarted ${replay}`).toMatchObject({
          state: "Up",
          pid: before!.pid
        })
        expect(logs.long.slice(0, 3), `${revision}: log lines that quote the peer whole ${replay}`).toEqual([])
      }).pipe(Effect.provide(logs.layer))
    }, 120_000)
  })
})
