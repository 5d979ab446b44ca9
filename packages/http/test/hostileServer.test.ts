/**
 * A hostile server against our client, over Streamable HTTP: for every revision, McpClient (pinned to it, 60 s
 * request timeout; McpNodeHttpClient, or McpHttpClient under `http-platform`) talks to a node:http server on
 * 127.0.0.1 that answers each request the client can send as the schema-driven generators say (see
 * `schema/test/fuzz/answers.ts`): a result with a value nested up to 10,000 deep, a string up to 1 MB or a wrong
 * type somewhere; a hostile error; or a stray message first and then the valid answer, on an SSE stream. A POST may
 * also be answered with the stray message alone, as JSON (the POST ends without the answer: the call must fail at
 * once, not wait for its timeout). Every call settles within 20 s, as a success when the valid answer followed,
 * else a success or a typed failure with a bounded message, never a defect; after each, the client still lists
 * tools and nothing is left pending. The seed is printed; `EFFECT_MCP_FUZZ_SEED` replays it and
 * `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the answers per revision (default 40).
 */
import { type Method, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Http from "node:http"
import * as Answers from "../../schema/test/fuzz/answers.js"
import * as Oracle from "../../schema/test/fuzz/callOracle.js"
import * as H from "../../schema/test/fuzz/hostile.js"
import { connect, listenOnLoopback } from "./helpers.js"

const CASES = H.frameCount(40)
const seed = H.seed("http/hostileServer")
const replay = `(seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`

/** How the server sends the lines of each case: on an SSE stream, or the first line alone as a JSON body. */
type Mode = "sse" | "json"

/** The answers of a run: a stray case sent as JSON keeps only its stray line, and must then fail at once. */
const casesOf = (revision: Revision.Revision, r: number) =>
  fc.sample(fc.tuple(Answers.hostileAnswers(revision), fc.boolean()), { seed: seed + r, numRuns: CASES }).map(
    ([answer, json]): { readonly answer: Answers.HostileAnswer; readonly mode: Mode } =>
      json && answer.lines.length > 1
        ? {
          answer: { ...answer, lines: [answer.lines[0]!], expect: "settle", what: `${answer.what} (the stray alone)` },
          mode: "json"
        }
        : { answer, mode: json ? "json" : "sse" }
  )

/** Serves a script on a node:http server: each request answered by its lines (JSON, or SSE for a case that says so). */
const hostileServer = (script: Answers.Script, modes: ReadonlyArray<Mode>) =>
  Http.createServer((req, res) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end()
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      let message: Record<string, unknown>
      try {
        message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return void res.writeHead(400).end()
      }
      if (typeof message.method !== "string" || !("id" in message)) return void res.writeHead(202).end()
      const lines = Answers.answerLines(script, message)
      const params = (message.params ?? {}) as { arguments?: { case?: number }; _meta?: Record<string, unknown> }
      const n = params.arguments?.case ?? params._meta?.["fuzz/case"]
      const session = message.method === "initialize" ? { "mcp-session-id": "hostile-session" } : {}
      if (typeof n === "number" && modes[n] === "sse") {
        res.writeHead(200, { "content-type": "text/event-stream", ...session })
        return void res.end(lines.map((l) => `data: ${l}\n\n`).join(""))
      }
      res.writeHead(200, { "content-type": "application/json", ...session }).end(lines[0])
    })
  })

describe("a hostile server over Streamable HTTP against McpClient", () => {
  Revision.all.forEach((revision, r) => {
    it.scopedLive(`${revision}: every call settles at once, typed; the client keeps working`, () => {
      const logs = Oracle.logCapture()
      return Effect.gen(function*() {
        const cases = casesOf(revision, r)
        const script = Answers.script(revision, cases.map((c) => c.answer))
        const port = yield* listenOnLoopback(hostileServer(script, cases.map((c) => c.mode)))
        const client = yield* connect(`http://127.0.0.1:${port}/mcp`, {
          revision,
          requestTimeout: Oracle.requestTimeout
        })
        yield* client.listTools()
        const problems: Array<string> = []
        for (const [n, { answer }] of cases.entries()) {
          const method = answer.method as keyof Method.ClientRequests
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
