/**
 * A hostile server against our client, over stdio: for every revision, McpClient (pinned to it, 60 s request
 * timeout) talks to a real child (`schema/test/fuzz/hostileServer.mjs`) that answers each request the client can
 * send with what the schema-driven generators make of its result: one place given a value nested up to 10,000 deep,
 * a string up to 1 MB or a wrong type; an error whose code, message or data is hostile; or a stray line first (a
 * response with a wrong or unreadable id, garbage, a whole frame nested deep, a hostile notification or server
 * request) and then the valid answer. Every call settles within 20 s (as a success when the valid answer followed,
 * else a success or a typed failure with a bounded message, never a defect); after each, the client still lists
 * tools and nothing of ours is left pending. The seed is printed; `EFFECT_MCP_FUZZ_SEED` replays it and
 * `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the answers per revision (default 40).
 */
import { McpClient, Transport } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { type Method, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Answers from "../../schema/test/fuzz/answers.js"
import * as Oracle from "../../schema/test/fuzz/callOracle.js"
import * as H from "../../schema/test/fuzz/hostile.js"

const CASES = H.frameCount(40)
const seed = H.seed("node/hostileServer")
const replay = `(seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`

describe("a hostile server over stdio against McpClient", () => {
  Revision.all.forEach((revision, r) => {
    it.scopedLive(`${revision}: every call settles at once, typed; the client keeps working`, () => {
      const logs = Oracle.logCapture()
      return Effect.gen(function*() {
        const answers = fc.sample(Answers.hostileAnswers(revision), { seed: seed + r, numRuns: CASES })
        const transport = yield* StdioClientTransport.make({
          command: process.execPath,
          args: [Answers.fixture, Answers.writeScript(Answers.script(revision, answers))],
          stderr: "ignore"
        })
        const client = yield* McpClient.make({
          name: "hostile-test",
          version: "0",
          revision,
          requestTimeout: Oracle.requestTimeout
        }).pipe(Effect.provideService(Transport.Transport, transport))
        // Listed first, so that callTool checks the hostile tool's results against its output schema.
        yield* client.listTools()
        const problems: Array<string> = []
        for (const [n, answer] of answers.entries()) {
          const method = answer.method as keyof Method.ClientRequests
          // Half the tool calls through callTool (it checks structuredContent), half as a plain request.
          const call = method === "tools/call" && n % 2 === 0
            ? client.callTool("hostile", { case: n })
            : client.request(method, Answers.caseParams(method, n) as never)
          const exit = yield* call.pipe(Effect.timeout(Oracle.settleWithin), Effect.exit)
          const wrong = Oracle.judgeCall(answer, exit)
          if (wrong !== undefined) problems.push(`${wrong}\n    ${Oracle.describeAnswer(answer, n)}`)
          const after = yield* client.listTools().pipe(Effect.timeout(Oracle.settleWithin), Effect.exit)
          if (after._tag === "Failure") problems.push(`the next call failed\n    ${Oracle.describeAnswer(answer, n)}`)
          if (client.stats().pending !== 0) problems.push(`${client.stats().pending} pending after case ${n}`)
          if (after._tag === "Failure") break
        }
        expect(
          problems.length === 0 ? [] : [`${problems.length} problems ${replay}`, ...problems.slice(0, 5)],
          revision
        ).toEqual(
          []
        )
        expect(logs.long.slice(0, 3), `${revision}: log lines that quote the peer whole ${replay}`).toEqual([])
      }).pipe(Effect.provide(logs.layer))
    }, 120_000)
  })
})
