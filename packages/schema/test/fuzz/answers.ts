/**
 * What a hostile server answers, from the schemas: for a revision and each request the client sends it, a valid
 * answer, and hostile ones: the valid result (Effect's `Arbitrary` of the revision's own result schema) with one
 * place given a hostile value; an error whose code, message or data is hostile; or a stray line first (a response
 * with a wrong or unreadable id, garbage, a whole frame nested 10,000 deep, a hostile notification or server request)
 * and then the valid answer. Lines hold `idPlaceholder` where the request's id goes; `hostileServer.mjs` serves them.
 */
import { Method, Revision } from "@effect-mcp/schema"
import * as fc from "effect/FastCheck"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { wireValues } from "./frames.js"
import * as H from "./hostile.js"

/** Where a line says the request's id goes (the fixture puts the id's JSON there). */
export const idPlaceholder = JSON.stringify("\u0000id\u0000")
const idValue = "\u0000id\u0000"

/** The requests a hostile server answers from a script (the handshake and `subscriptions/listen` are answered apart). */
export const answeredMethods = (revision: Revision.Revision): ReadonlyArray<string> =>
  [...Method.table.values()]
    .filter((m) =>
      m.kind === "request" && m.from !== "server" && m.revisions.includes(revision) &&
      !["initialize", "server/discover", "subscriptions/listen"].includes(m.method)
    )
    .map((m) => m.method)

/** The tools the hostile server lists: `hostile` (with an output schema, so clients check what it returns) and `echo`. */
export const tools = [
  {
    name: "hostile",
    description: "answers what the script says",
    inputSchema: { type: "object", properties: { case: { type: "integer" } } },
    outputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] }
  },
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }
]

/** A valid result for a method, where a hand-written one reads better than a generated one. */
const written: Readonly<Record<string, unknown>> = {
  "tools/list": { tools },
  "tools/call": { content: [{ type: "text", text: "ok" }], structuredContent: { x: "ok" } },
  "resources/list": { resources: [{ uri: "test://ok", name: "ok" }] },
  "resources/read": { contents: [{ uri: "test://ok", text: "ok" }] },
  "prompts/list": { prompts: [{ name: "hostile" }] },
  "prompts/get": { messages: [{ role: "user", content: { type: "text", text: "ok" } }] },
  "completion/complete": { completion: { values: ["ok"] } },
  "resources/templates/list": { resourceTemplates: [] },
  "ping": {},
  "logging/setLevel": {},
  "resources/subscribe": {},
  "resources/unsubscribe": {}
}

const cacheable = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

/** Under 2026-07-28 every result says it is complete, and a list says how it may be cached. */
const complete = (revision: Revision.Revision, result: unknown, method = "") =>
  Revision.isStateless(revision) && typeof result === "object" && result !== null
    ? { resultType: "complete", ...(cacheable.has(method) ? { cacheScope: "public", ttlMs: 0 } : {}), ...result }
    : result

/** A valid result of `method` under `revision`. */
export const validResult = (revision: Revision.Revision, method: string): unknown => {
  const type = Method.shape(method, revision)?.result
  if (type === undefined) throw new Error(`${revision} has no result for ${method}`)
  return complete(
    revision,
    written[method] ?? fc.sample(wireValues(revision, type), { numRuns: 1, seed: 0 })[0],
    method
  )
}

/** The line of a valid answer of `method`. */
export const validAnswer = (revision: Revision.Revision, method: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id: idValue, result: validResult(revision, method) })

/** A hostile answer: its lines, and whether the call must succeed (the last line is the valid answer) or just end. */
export interface HostileAnswer {
  readonly method: string
  /** What was done, for failure reports. */
  readonly what: string
  /** The lines, in order (`idPlaceholder` where the request's id goes). */
  readonly lines: ReadonlyArray<string>
  /** `succeed`: a stray line, then the valid answer. `settle`: the answer is hostile; the call ends, either way. */
  readonly expect: "succeed" | "settle"
}

/** Puts a hostile value at one of the value's paths (or at a given one, added when absent). */
const mutate = (value: unknown, focus: ReadonlyArray<H.Path>) =>
  fc.tuple(fc.nat(), fc.boolean(), fc.constantFrom(...focus), H.hostile).map(([pick, anywhere, place, raw]) => {
    const paths = H.pathsOf(value).filter((p) => p.length > 1)
    const path = anywhere && paths.length > 0 ? paths[pick % paths.length]! : place
    return { text: H.splice(value, path, raw.text), what: `${raw.what} at ${H.showPath(path)}` }
  })

const resultFocus: ReadonlyArray<H.Path> = [
  ["result"],
  ["result", "_meta"],
  ["result", "content"],
  ["result", "content", 0, "text"],
  ["result", "structuredContent"],
  ["result", "isError"],
  ["result", "nextCursor"],
  ["result", "tools", 0, "inputSchema"],
  ["result", "resultType"],
  ["jsonrpc"]
]

const errorFocus: ReadonlyArray<H.Path> = [["error"], ["error", "code"], ["error", "message"], ["error", "data"]]

/** Lines a client must survive and ignore (or answer) before the real answer. */
const strayLine = (revision: Revision.Revision, method: string): fc.Arbitrary<{ text: string; what: string }> => {
  const valid = { jsonrpc: "2.0", id: idValue, result: validResult(revision, method) }
  const notifications = [...Method.table.values()].filter((m) =>
    m.kind === "notification" && m.from !== "client" && m.revisions.includes(revision) &&
    Method.shape(m.method, revision)?.params != null
  ).map((m) => ({ method: m.method, params: wireValues(revision, Method.shape(m.method, revision)!.params!) }))
  const serverRequests = [...Method.table.values()].filter((m) =>
    m.kind === "request" && m.from !== "client" && m.revisions.includes(revision)
  )
  const arbitraries: Array<fc.Arbitrary<{ text: string; what: string }>> = [
    // a response to an id never sent, or to no readable id
    fc.tuple(fc.oneof(H.hostile, fc.constantFrom({ text: "987654321", what: "id 987654321" })), fc.boolean()).map((
      [id, error]
    ) => ({
      text: H.splice(
        error ? { jsonrpc: "2.0", id: 0, error: { code: -32603, message: "stray" } } : valid,
        ["id"],
        id.text
      ),
      what: `a stray ${error ? "error" : "result"} with id ${id.what}`
    })),
    // not JSON, cut short, or a whole frame nested deep
    fc.constantFrom("not json", "{\"jsonrpc\":\"2.0\",\"id\":", "[]", "null", "\"\"", "{}").map((text) => ({
      text,
      what: `garbage ${text}`
    })),
    fc.tuple(H.depth, fc.boolean()).map(([d, array]) => {
      const v = H.nested(d, array ? [0] : [1], "1")
      return { text: v.text, what: `a whole frame ${v.what}` }
    })
  ]
  if (notifications.length > 0) {
    arbitraries.push(
      fc.constantFrom(...notifications).chain((m) =>
        m.params.chain((params) =>
          mutate({ jsonrpc: "2.0", method: m.method, params }, [["params"], ["params", "_meta"]]).map((x) => ({
            text: x.text,
            what: `${m.method} with ${x.what}`
          }))
        )
      )
    )
  }
  if (serverRequests.length > 0) {
    arbitraries.push(
      fc.tuple(fc.constantFrom(...serverRequests), H.hostile).map(([m, raw]) => ({
        text: `{"jsonrpc":"2.0","id":${raw.text},"method":${JSON.stringify(m.method)}}`,
        what: `a ${m.method} request with id ${raw.what}`
      }))
    )
  }
  return fc.oneof(...arbitraries)
}

/** Hostile answers to one method under `revision`. */
const answersOf = (revision: Revision.Revision, method: string): fc.Arbitrary<HostileAnswer> => {
  const valid = { jsonrpc: "2.0", id: idValue, result: validResult(revision, method) }
  const failed = { jsonrpc: "2.0", id: idValue, error: { code: -32602, message: "bad", data: { x: 1 } } }
  return fc.oneof(
    {
      weight: 3,
      arbitrary: mutate(valid, resultFocus).map((x): HostileAnswer => ({
        method,
        what: `result with ${x.what}`,
        lines: [x.text],
        expect: "settle"
      }))
    },
    {
      weight: 1,
      arbitrary: mutate(failed, errorFocus).map((x): HostileAnswer => ({
        method,
        what: `error with ${x.what}`,
        lines: [x.text],
        expect: "settle"
      }))
    },
    {
      weight: 2,
      arbitrary: strayLine(revision, method).map((x): HostileAnswer => ({
        method,
        what: `${x.what}, then the answer`,
        lines: [x.text, JSON.stringify(valid)],
        expect: "succeed"
      }))
    }
  )
}

/** Hostile answers to the given methods under `revision`. */
export const hostileAnswers = (
  revision: Revision.Revision,
  methods: ReadonlyArray<string> = answeredMethods(revision)
): fc.Arbitrary<HostileAnswer> => {
  const byMethod = new Map(methods.map((m) => [m, answersOf(revision, m)]))
  return fc.constantFrom(...methods).chain((m) => byMethod.get(m)!)
}

const capabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {}
}

/** The valid answer to the handshake: `initialize`, or `server/discover` under 2026-07-28. */
export const handshakeAnswer = (revision: Revision.Revision): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: idValue,
    result: Revision.isStateless(revision)
      ? {
        resultType: "complete",
        supportedVersions: [revision],
        capabilities,
        cacheScope: "public",
        ttlMs: 0,
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "hostile", version: "0" } }
      }
      : { protocolVersion: revision, capabilities, serverInfo: { name: "hostile", version: "0" } }
  })

/** What the fixture needs: its revision, its handshake, the valid answers by method, the hostile ones by case. */
export interface Script {
  readonly revision: Revision.Revision
  /** Whether it speaks 2026-07-28 (`server/discover`) rather than `initialize`. */
  readonly stateless: boolean
  readonly handshake: string
  /** What every result of `echo` carries besides its content. */
  readonly resultExtra: Readonly<Record<string, unknown>>
  readonly valid: Readonly<Record<string, string>>
  readonly cases: ReadonlyArray<ReadonlyArray<string>>
}

/** The script of a hostile server speaking `revision` that answers case `i` with `answers[i]`. */
export const script = (revision: Revision.Revision, answers: ReadonlyArray<HostileAnswer>): Script => ({
  revision,
  stateless: Revision.isStateless(revision),
  handshake: handshakeAnswer(revision),
  resultExtra: complete(revision, {}) as Record<string, unknown>,
  valid: Object.fromEntries(answeredMethods(revision).map((m) => [m, validAnswer(revision, m)])),
  cases: answers.map((a) => a.lines)
})

/** The lines a scripted server writes for one request (the fixture does the same in JavaScript). */
export const answerLines = (script: Script, request: Record<string, unknown>): ReadonlyArray<string> => {
  const { id, method } = request
  const params = (typeof request.params === "object" && request.params !== null ? request.params : {}) as {
    readonly name?: unknown
    readonly arguments?: { readonly case?: unknown; readonly text?: unknown }
    readonly _meta?: Record<string, unknown>
  }
  const put = (lines: ReadonlyArray<string>) => lines.map((l) => l.split(idPlaceholder).join(JSON.stringify(id)))
  const notFound = JSON.stringify({ jsonrpc: "2.0", id: idValue, error: { code: -32601, message: "Method not found" } })
  if (method === "initialize" || method === "server/discover") {
    return put([(method === "server/discover") === script.stateless ? script.handshake : notFound])
  }
  const n = params.arguments?.case ?? params._meta?.["fuzz/case"]
  if (typeof n === "number" && script.cases[n] !== undefined) return put(script.cases[n]!)
  if (method === "tools/call" && params.name === "echo") {
    const content = [{ type: "text", text: String(params.arguments?.text) }]
    return [JSON.stringify({ jsonrpc: "2.0", id, result: { ...script.resultExtra, content } })]
  }
  return put([script.valid[String(method)] ?? notFound])
}

/** Valid params of a request the hostile server answers with case `n` (it reads `_meta["fuzz/case"]`). */
export const caseParams = (method: string, n: number): Record<string, unknown> => {
  const _meta = { "fuzz/case": n }
  switch (method) {
    case "tools/call":
      return { name: "hostile", arguments: { case: n } }
    case "prompts/get":
      return { name: "hostile", _meta }
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return { uri: "test://ok", _meta }
    case "completion/complete":
      return { ref: { type: "ref/prompt", name: "hostile" }, argument: { name: "a", value: "" }, _meta }
    case "logging/setLevel":
      return { level: "info", _meta }
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return { taskId: "t", _meta }
    default:
      return { _meta }
  }
}

/** The stdio fixture that serves a script: `node <fixture> <script.json>`. */
export const fixture = fileURLToPath(new URL("./hostileServer.mjs", import.meta.url))

/** Writes a script for the fixture to a new temporary file; its path. */
export const writeScript = (script: Script): string => {
  const path = join(mkdtempSync(join(tmpdir(), "effect-mcp-hostile-")), "script.json")
  writeFileSync(path, JSON.stringify(script))
  return path
}
