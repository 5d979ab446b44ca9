/**
 * Content negotiation over real HTTP on 127.0.0.1: a POST whose body is not declared JSON gets 415 (before the body is
 * read, and before any session is made), a client that accepts neither JSON nor SSE gets 406, and a client that
 * accepts one of the two gets its answer in that one, in every era (sessions, 2026-07-28, legacy HTTP+SSE). The
 * header parsing itself is checked in tables.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import * as Media from "../src/internal/media.js"
import { initialize, meta2026, openSession, serve } from "./helpers.js"

// ---------- the parsing ----------

describe("media types", () => {
  it("Content-Type: application/json with any parameters, nothing else", () => {
    const json = [
      "application/json",
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/json;charset=UTF-8"
    ]
    for (const t of json) expect([t, Media.isJson(t)]).toEqual([t, true])
    const other = [
      undefined,
      "",
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "text/json",
      "application/json-seq",
      "application/vnd.api+json",
      "application/json, text/plain",
      "json",
      "application/ json"
    ]
    for (const t of other) expect([t, Media.isJson(t)]).toEqual([t, false])
  })

  it("Accept: media ranges, wildcards, q=0, the most specific range deciding; none accepts anything", () => {
    const table: ReadonlyArray<readonly [string | undefined, boolean, boolean]> = [
      [undefined, true, true],
      ["", true, true],
      ["application/json, text/event-stream", true, true],
      ["text/event-stream, application/json", true, true],
      ["application/json", true, false],
      ["text/event-stream", false, true],
      ["*/*", true, true],
      ["application/*", true, false],
      ["text/*", false, true],
      ["APPLICATION/JSON;q=0.5, Text/Event-Stream;q=0.1", true, true],
      ["application/json;q=0, */*", false, true],
      ["application/json;q=0, text/event-stream;q=0", false, false],
      ["*/*;q=0", false, false],
      ["text/html", false, false],
      ["application/xml, text/plain", false, false],
      ["garbage", false, false],
      ["*/json", false, false],
      ["application/json;q=banana", false, false],
      ["text/event-stream;charset=utf-8", false, true]
    ]
    for (const [header, json, sse] of table) expect([header, Media.accepted(header)]).toEqual([header, { json, sse }])
  })
})

// ---------- over HTTP ----------

interface Answer {
  readonly status: number
  readonly type: string | undefined
  readonly body: string
}

/**
 * One exchange with exactly the given headers (node:http adds no Accept or Content-Type of its own): the whole body, or
 * none when the answer is a stream that may not end (`open`: a GET's, a listen's), closed once its head is read.
 */
const send = (
  url: string,
  headers: Record<string, string | undefined>,
  body?: unknown,
  method = "POST",
  open = method === "GET"
): Effect.Effect<Answer> =>
  Effect.async((resume) => {
    const target = new URL(url)
    const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >
    const req = Http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method,
      headers: defined,
      agent: false
    }, (res) => {
      const answer = { status: res.statusCode ?? 0, type: res.headers["content-type"] }
      if (open && answer.type === "text/event-stream") {
        req.destroy()
        return resume(Effect.succeed({ ...answer, body: "" }))
      }
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (text += c))
      res.on("end", () => resume(Effect.succeed({ ...answer, body: text })))
    })
    req.on("error", (e) => resume(Effect.die(e)))
    req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body))
  })

/** The head of a GET that may stream, read and then closed. */
const head = (url: string, headers: Record<string, string | undefined>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly req: Http.ClientRequest; readonly res: Http.IncomingMessage }>((resume) => {
      const target = new URL(url)
      const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        headers: defined,
        agent: false
      }, (res) => resume(Effect.succeed({ req, res })))
      req.on("error", (e) => resume(Effect.die(e)))
      req.end()
    }),
    ({ req }) => Effect.sync(() => req.destroy())
  ).pipe(Effect.map(({ res }) => ({ status: res.statusCode ?? 0, type: res.headers["content-type"] })))

const both = "application/json, text/event-stream"
const json = "application/json"

/** The JSON-RPC messages of an answer, JSON or SSE. */
const messagesOf = (answer: Answer): Array<any> =>
  answer.type?.startsWith("application/json")
    ? [JSON.parse(answer.body)]
    : answer.body.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)))

const refusal = (answer: Answer) => ({
  status: answer.status,
  type: answer.type,
  body: answer.body === "" ? undefined : JSON.parse(answer.body)
})

const unsupported = {
  status: 415,
  type: "application/json",
  body: {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" }
  }
}

const notAcceptable = (message: string) => ({
  status: 406,
  type: "application/json",
  body: { jsonrpc: "2.0", id: null, error: { code: -32000, message } }
})

const neither = "Not Acceptable: the client must accept application/json or text/event-stream"
const noStream = "Not Acceptable: the client must accept text/event-stream"

const hostileContentTypes: ReadonlyArray<string | undefined> = [
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----x",
  undefined,
  "",
  "application/jsonx",
  "text/json",
  "application/json-seq",
  "application/json, text/plain"
]

const call = (id: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...extra }
})

const stateless = (method: string, name?: string) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name })
})

/** A session opened with the usual headers; the headers of its later POSTs (Accept aside). */
const session = (url: string) =>
  Effect.map(openSession(url), ({ headers }): Record<string, string> => ({ ...headers, "content-type": json }))

describe("415 Unsupported Media Type", () => {
  it.scopedLive("a POST not declared JSON is refused before anything happens, in every era", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const sessionHeaders = yield* session(url)
      const before = server.stats().connections
      for (const type of hostileContentTypes) {
        const initialized = yield* send(url, { "content-type": type, accept: both }, initialize("2025-11-25"))
        expect([type, refusal(initialized)]).toEqual([type, unsupported])
        const inSession = yield* send(
          url,
          { ...sessionHeaders, "content-type": type, accept: both },
          call(1, "echo", { text: "hi" })
        )
        expect([type, refusal(inSession)]).toEqual([type, unsupported])
        const modern = yield* send(
          url,
          { ...stateless("tools/call", "echo"), "content-type": type, accept: both },
          call(1, "echo", { text: "hi" }, { _meta: meta2026 })
        )
        expect([type, refusal(modern)]).toEqual([type, unsupported])
      }
      // No session came of any of them.
      expect(server.stats().connections).toBe(before)
    }))

  it.scopedLive("the legacy message endpoint refuses a body not declared JSON", () =>
    Effect.gen(function*() {
      const { origin } = yield* serve({ legacySse: true })
      // The legacy session lives as long as its stream: it stays open until the test ends.
      const { endpoint } = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const res = await fetch(`${origin}/sse`, { headers: { accept: "text/event-stream" } })
          const reader = res.body!.getReader()
          let text = ""
          while (!text.includes("\n\n")) text += new TextDecoder().decode((await reader.read()).value)
          return { endpoint: /data: (.*)/.exec(text)![1]!, reader }
        }),
        ({ reader }) => Effect.promise(() => reader.cancel().catch(() => undefined))
      )
      for (const type of hostileContentTypes) {
        const answer = yield* send(`${origin}${endpoint}`, { "content-type": type }, initialize("2024-11-05"))
        expect([type, refusal(answer)]).toEqual([type, unsupported])
      }
    }))

  it.scopedLive("application/json with parameters, in any case, is served", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
        const answer = yield* send(url, { "content-type": type, accept: both }, initialize("2025-11-25"))
        expect([type, answer.status]).toEqual([type, 200])
      }
    }))
})

describe("406 Not Acceptable, and the answer in the form the client accepts", () => {
  it.scopedLive("a POST whose Accept allows neither JSON nor SSE gets 406, in every era", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const sessionHeaders = yield* session(url)
      const before = server.stats().connections
      for (
        const accept of [
          "text/html",
          "garbage",
          "application/xml, text/plain",
          "*/*;q=0",
          "application/json;q=0, text/event-stream;q=0"
        ]
      ) {
        const initialized = yield* send(url, { "content-type": json, accept }, initialize("2025-11-25"))
        expect([accept, refusal(initialized)]).toEqual([accept, notAcceptable(neither)])
        const inSession = yield* send(url, { ...sessionHeaders, accept }, call(1, "echo", { text: "hi" }))
        expect([accept, refusal(inSession)]).toEqual([accept, notAcceptable(neither)])
        const modern = yield* send(
          url,
          { ...stateless("tools/call", "echo"), "content-type": json, accept },
          call(1, "echo", { text: "hi" }, { _meta: meta2026 })
        )
        expect([accept, refusal(modern)]).toEqual([accept, notAcceptable(neither)])
      }
      expect(server.stats().connections).toBe(before)
    }))

  it.scopedLive("a client that accepts only JSON gets JSON, even where the answer would stream (progress)", () =>
    Effect.gen(function*() {
      for (const responseMode of ["auto", "sse"] as const) {
        const { url } = yield* serve({ responseMode })
        const init = yield* send(url, { "content-type": json, accept: json }, initialize("2025-11-25"))
        expect([responseMode, init.status, init.type]).toEqual([responseMode, 200, "application/json"])
        const sessionHeaders = yield* session(url)
        for (const accept of [json, "application/*", "application/json, text/event-stream;q=0"]) {
          const counted = yield* send(
            url,
            { ...sessionHeaders, accept },
            call(2, "count", { to: 3 }, { _meta: { progressToken: "p" } })
          )
          expect([responseMode, accept, counted.status, counted.type]).toEqual([
            responseMode,
            accept,
            200,
            "application/json"
          ])
          expect(messagesOf(counted)).toMatchObject([{ id: 2, result: { content: [{ text: "counted to 3" }] } }])
          const modern = yield* send(
            url,
            { ...stateless("tools/call", "count"), "content-type": json, accept },
            call(3, "count", { to: 3 }, { _meta: { ...meta2026, progressToken: "q" } })
          )
          expect([responseMode, accept, modern.status, modern.type]).toEqual([
            responseMode,
            accept,
            200,
            "application/json"
          ])
          expect(messagesOf(modern)).toMatchObject([{ id: 3, result: { content: [{ text: "counted to 3" }] } }])
        }
      }
    }))

  it.scopedLive("a client that accepts only SSE gets SSE, even where the answer would be JSON", () =>
    Effect.gen(function*() {
      for (const responseMode of ["auto", "json"] as const) {
        const { url } = yield* serve({ responseMode })
        const sessionHeaders = yield* session(url)
        for (const accept of ["text/event-stream", "text/*", "application/json;q=0, */*"]) {
          const echoed = yield* send(url, { ...sessionHeaders, accept }, call(4, "echo", { text: "hi" }))
          expect([responseMode, accept, echoed.status, echoed.type]).toEqual([
            responseMode,
            accept,
            200,
            "text/event-stream"
          ])
          expect(messagesOf(echoed)).toMatchObject([{ id: 4, result: { content: [{ text: "hi" }] } }])
          const modern = yield* send(
            url,
            { ...stateless("tools/call", "echo"), "content-type": json, accept },
            call(5, "echo", { text: "hi" }, { _meta: meta2026 })
          )
          expect([responseMode, accept, modern.status, modern.type]).toEqual([
            responseMode,
            accept,
            200,
            "text/event-stream"
          ])
          expect(messagesOf(modern)).toMatchObject([{ id: 5, result: { content: [{ text: "hi" }] } }])
        }
      }
    }))

  it.scopedLive("a client that accepts both, or says nothing, gets what the response mode chooses", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const sessionHeaders = yield* session(url)
      for (const accept of [both, "*/*", undefined, "text/event-stream, application/json"]) {
        const echoed = yield* send(url, { ...sessionHeaders, accept }, call(6, "echo", { text: "hi" }))
        expect([accept, echoed.status, echoed.type]).toEqual([accept, 200, "application/json"])
        const counted = yield* send(
          url,
          { ...sessionHeaders, accept },
          call(7, "count", { to: 2 }, { _meta: { progressToken: "p" } })
        )
        expect([accept, counted.status, counted.type]).toEqual([accept, 200, "text/event-stream"])
        expect(messagesOf(counted).map((m) => m.method ?? "result")).toEqual([
          "notifications/progress",
          "notifications/progress",
          "result"
        ])
      }
    }))

  it.scopedLive("a stream only (GET, subscriptions/listen, legacy /sse) needs a client that accepts SSE", () =>
    Effect.gen(function*() {
      const { origin, url } = yield* serve({ legacySse: true })
      const sessionHeaders = yield* session(url)
      const sessionId = sessionHeaders["mcp-session-id"]!
      for (const accept of [json, "text/html", "garbage", "application/*"]) {
        const get = yield* send(url, { "mcp-session-id": sessionId, accept }, undefined, "GET")
        expect([accept, refusal(get)]).toEqual([accept, notAcceptable(noStream)])
        const listen = yield* send(
          url,
          { ...stateless("subscriptions/listen"), "content-type": json, accept },
          { jsonrpc: "2.0", id: 8, method: "subscriptions/listen", params: { _meta: meta2026, notifications: {} } },
          "POST",
          true
        )
        const why = accept === json || accept === "application/*" ? noStream : neither
        expect([accept, refusal(listen)]).toEqual([accept, notAcceptable(why)])
        const legacy = yield* send(`${origin}/sse`, { accept }, undefined, "GET")
        expect([accept, refusal(legacy)]).toEqual([accept, notAcceptable(noStream)])
      }
      for (const accept of ["text/event-stream", "*/*", undefined, "text/*"]) {
        const get = yield* head(url, { "mcp-session-id": sessionId, accept })
        expect([accept, get.status, get.type]).toEqual([accept, 200, "text/event-stream"])
        const legacy = yield* head(`${origin}/sse`, { accept })
        expect([accept, legacy.status, legacy.type]).toEqual([accept, 200, "text/event-stream"])
      }
    }))
})
