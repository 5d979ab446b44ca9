import { McpServer, RequestContext } from "@effect-mcp/core"
import { EventStore, McpHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import {
  initialize,
  messages,
  meta2026,
  openSession,
  post,
  postHeaders,
  rawRequest,
  readEvents,
  serve,
  tools
} from "./helpers.js"

const call = (
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {}
) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...extra }
})

/** Polls `done` every 10 ms until it holds, for a condition no event announces; fails naming `what` after 5 s. */
const until = (what: string, done: () => boolean) =>
  Effect.suspend(() => (done() ? Effect.void : Effect.fail(new Error(`not within 5 s: ${what}`)))).pipe(
    Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 500 }),
    Effect.orDie
  )

/** Reads a streaming body as text until `done` says it has what it waits for (then cancels it). */
const readTextUntil = (response: Response, done: (text: string) => boolean): Effect.Effect<string> =>
  Effect.promise(async () => {
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    while (!done(text)) {
      const next = await reader.read()
      if (next.done) break
      text += decoder.decode(next.value, { stream: true })
    }
    await reader.cancel().catch(() => undefined)
    return text
  })

const get = (url: string, headers: Record<string, string>) =>
  Effect.promise(() => fetch(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } }))

describe("sessions", () => {
  it.scopedLive("initialize mints a 128-bit session id; requests without one get 400, unknown ones 404", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { sessionId } = yield* openSession(url)
      expect(sessionId).toMatch(/^[0-9a-f]{32}$/)
      const other = yield* openSession(url)
      expect(other.sessionId).not.toBe(sessionId)
      const missing = yield* post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" })
      expect(missing.status).toBe(400)
      const unknown = yield* post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, {
        "mcp-session-id": "0".repeat(32)
      })
      expect(unknown.status).toBe(404)
      const getUnknown = yield* get(url, { "mcp-session-id": "nope" })
      expect(getUnknown.status).toBe(404)
    }))

  it.scopedLive("DELETE ends the session", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url)
      const deleted = yield* Effect.promise(() => fetch(url, { method: "DELETE", headers }))
      expect(deleted.status).toBe(200)
      const after = yield* post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers)
      expect(after.status).toBe(404)
    }))

  it.scopedLive("idle sessions are reaped", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve({ sessionIdleTimeout: "100 millis" })
      const { headers } = yield* openSession(url)
      // Measured from before the last request went out: the server's idle time starts when it has handled it, which
      // under load can be well before its answer reaches this client.
      const idleSince = Date.now()
      const soon = yield* post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, headers)
      expect(soon.status).toBe(200)
      // A request would keep the session alive, and nothing tells a client it was reaped: the server's count of
      // connections is polled (bounded) until the session is gone.
      yield* until("the session was reaped", () => server.stats().connections === 0)
      expect(Date.now() - idleSince).toBeGreaterThanOrEqual(90)
      const late = yield* post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, headers)
      expect(late.status).toBe(404)
    }))

  it.scopedLive("MCP-Protocol-Version on a session: a handshake revision is accepted, anything else is 400", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers, sessionId } = yield* openSession(url, "2025-06-18")
      // the official conformance suite sends 2025-03-26 on sessions it negotiated at 2025-11-25
      const other = yield* post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, {
        ...headers,
        "mcp-protocol-version": "2025-11-25"
      })
      expect(other.status).toBe(200)
      const stateless = yield* post(url, { jsonrpc: "2.0", id: 4, method: "ping" }, {
        ...headers,
        "mcp-protocol-version": "2099-01-01"
      })
      expect(stateless.status).toBe(400)
      const garbage = yield* post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, {
        ...headers,
        "mcp-protocol-version": "banana"
      })
      expect(garbage.status).toBe(400)
      const absent = yield* post(url, { jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-session-id": sessionId })
      expect(absent.status).toBe(200)
    }))

  it.scopedLive("a request whose id is not a JSON-RPC id (1.5, true, null) gets 400 at once, not a hung POST", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url)
      for (const id of [1.5, true, null]) {
        const res = yield* post(url, { jsonrpc: "2.0", id, method: "ping" }, headers)
        expect(res.status).toBe(400)
      }
      expect((yield* post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, headers)).status).toBe(200)
    }))

  it.scopedLive("a POST of notifications or responses only gets 202", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url)
      const res = yield* post(url, { jsonrpc: "2.0", method: "notifications/roots/list_changed" }, headers)
      expect(res.status).toBe(202)
      expect(yield* Effect.promise(() => res.text())).toBe("")
    }))

  it.scopedLive("a failed initialize creates no session", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const res = yield* post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { nope: true } })
      expect(res.headers.get("mcp-session-id")).toBeNull()
      const [answer] = yield* messages(res)
      expect(answer.error.code).toBe(-32602)
    }))
})

describe("JSON and SSE answers", () => {
  it.scopedLive("auto: JSON for a plain answer, SSE when progress precedes it", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url)
      const plain = yield* post(url, call(1, "echo", { text: "hi" }), headers)
      expect(plain.headers.get("content-type")).toContain("application/json")
      expect((yield* messages(plain))[0].result.content[0].text).toBe("hi")
      const streamed = yield* post(url, call(2, "count", { to: 2 }, { _meta: { progressToken: "t" } }), headers)
      expect(streamed.headers.get("content-type")).toContain("text/event-stream")
      const all = yield* messages(streamed)
      expect(all.map((m) => m.method ?? "response")).toEqual([
        "notifications/progress",
        "notifications/progress",
        "response"
      ])
      expect(all[2].result.content[0].text).toBe("counted to 2")
    }))

  it.scopedLive("responseMode sse always streams; json never does", () =>
    Effect.gen(function*() {
      const sse = yield* serve({ responseMode: "sse" })
      const a = yield* openSession(sse.url)
      const res = yield* post(sse.url, call(1, "echo", { text: "x" }), a.headers)
      expect(res.headers.get("content-type")).toContain("text/event-stream")
      expect((yield* messages(res))[0].result.content[0].text).toBe("x")
      const json = yield* serve({ responseMode: "json" })
      const b = yield* openSession(json.url)
      const res2 = yield* post(json.url, call(2, "count", { to: 2 }, { _meta: { progressToken: "t" } }), b.headers)
      expect(res2.headers.get("content-type")).toContain("application/json")
      expect((yield* messages(res2))[0].result.content[0].text).toBe("counted to 2")
    }))

  it.scopedLive("a cancelled request's POST ends as an SSE stream without an event; the session carries on", () =>
    Effect.gen(function*() {
      for (const [responseMode, id] of [["auto", 7], ["json", 7], ["auto", "call-7"], ["json", "7"]] as const) {
        const started = yield* Deferred.make<void>()
        const interrupted = yield* Deferred.make<void>()
        const { url } = yield* serve(
          { responseMode },
          tools({
            onSlowStarted: Deferred.succeed(started, undefined),
            onSlowInterrupted: Deferred.succeed(interrupted, undefined)
          })
        )
        const { headers } = yield* openSession(url)
        const pending = Effect.runPromise(post(url, call(id, "slow"), headers))
        yield* Deferred.await(started).pipe(Effect.timeout("5 seconds"))
        const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }
        expect((yield* post(url, cancel, headers)).status).toBe(202)
        yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
        const answer = yield* Effect.promise(() => pending)
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toContain("text/event-stream")
        expect(yield* messages(answer)).toEqual([])
        const after = yield* post(url, call(8, "echo", { text: "still here" }), headers)
        expect((yield* messages(after))[0].result.content[0].text).toBe("still here")
      }
    }))

  it.scopedLive("2025-11-25 SSE starts with a priming event (id, empty data, retry); 2025-06-18 does not", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ responseMode: "sse", retryInterval: "1500 millis" })
      const modern = yield* openSession(url, "2025-11-25")
      const res = yield* post(url, call(1, "echo", { text: "x" }), modern.headers)
      const text = yield* Effect.promise(() => res.text())
      expect(text).toMatch(/^id: p\d+\.-1\nretry: 1500\ndata:\n\n/)
      const older = yield* openSession(url, "2025-06-18")
      const res2 = yield* post(url, call(1, "echo", { text: "x" }), older.headers)
      const text2 = yield* Effect.promise(() => res2.text())
      expect(text2).not.toContain("retry:")
    }))

  it.scopedLive("the standalone GET stream: list_changed arrives and keep-alive comments flow", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve({ keepAliveInterval: "50 millis" })
      const { headers } = yield* openSession(url)
      const stream = yield* get(url, headers)
      expect(stream.status).toBe(200)
      expect(stream.headers.get("content-type")).toContain("text/event-stream")
      yield* server.removeTool("echo")
      const text = yield* readTextUntil(
        stream,
        (text) => text.includes(": keep-alive") && text.includes("notifications/tools/list_changed")
      )
      expect(text).toContain(": keep-alive")
      expect(text).toContain("notifications/tools/list_changed")
    }))

  it.scopedLive("GET answers 405 when the standalone stream is disabled", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ standaloneSse: false })
      const { headers } = yield* openSession(url)
      expect((yield* get(url, headers)).status).toBe(405)
    }))

  it.scopedLive("a stream cut mid-response resumes with Last-Event-ID, without losing or repeating events", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url)
      const res = yield* post(
        url,
        call(1, "count", { to: 4, delayMs: 150 }, { _meta: { progressToken: "t" } }),
        headers
      )
      const first = yield* readEvents(res, (events) => events.some((e) => e.data.includes("progress")))
      const lastId = first[first.length - 1]!.id!
      expect(JSON.parse(first[first.length - 1]!.data).params.progress).toBe(1)
      const resumed = yield* get(url, { ...headers, "last-event-id": lastId })
      expect(resumed.status).toBe(200)
      const rest = yield* readEvents(resumed, (events) => events.some((e) => e.data.includes("counted")))
      const payloads = rest.filter((e) => e.data !== "").map((e) => JSON.parse(e.data))
      expect(payloads.map((m) => m.params?.progress ?? m.result.content[0].text)).toEqual([2, 3, 4, "counted to 4"])
      // A closed response stream did not kill the session.
      expect((yield* post(url, { jsonrpc: "2.0", id: 9, method: "ping" }, headers)).status).toBe(200)
    }))

  it.scopedLive("a stream that ended is replayed from the store after it finished", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const { headers } = yield* openSession(url)
      const res = yield* post(
        url,
        call(1, "count", { to: 2, delayMs: 100 }, { _meta: { progressToken: "t" } }),
        headers
      )
      const first = yield* readEvents(res, (events) => events.some((e) => e.data.includes("progress")))
      // The client stopped reading, so no event says the call finished: the server's count of requests in flight
      // is polled (bounded); the response is stored before its request stops counting.
      yield* until("the call finished", () => server.stats().inFlight === 0)
      const resumed = yield* get(url, { ...headers, "last-event-id": first[first.length - 1]!.id! })
      const rest = yield* readEvents(resumed, (events) => events.some((e) => e.data.includes("counted")))
      expect(rest.filter((e) => e.data !== "").map((e) => JSON.parse(e.data).params?.progress ?? "result")).toEqual([
        2,
        "result"
      ])
    }))
})

describe("batches", () => {
  const batch = [{ jsonrpc: "2.0", id: 1, method: "ping" }, call(2, "echo", { text: "b" })]

  it.scopedLive("a batch from a 2025-06-18 session gets 400", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url, "2025-06-18")
      expect((yield* post(url, batch, headers)).status).toBe(400)
    }))

  it.scopedLive("a batch from a 2025-03-26 session is answered as one array", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url, "2025-03-26")
      const res = yield* post(url, batch, headers)
      expect(res.status).toBe(200)
      const [answer] = yield* messages(res)
      expect(answer.map((m: any) => m.id).sort()).toEqual([1, 2])
    }))
})

describe("2026-07-28", () => {
  const headers2026 = (method: string, name?: string) => ({
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name })
  })
  const echo2026 = (id: number, text: string, name = "echo") => call(id, name, { text }, { _meta: meta2026 })

  it.scopedLive("a stateless POST is answered with no session", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const res = yield* post(url, echo2026(1, "s"), headers2026("tools/call", "echo"))
      expect(res.status).toBe(200)
      expect(res.headers.get("mcp-session-id")).toBeNull()
      const [answer] = yield* messages(res)
      expect(answer.result.resultType).toBe("complete")
      expect(answer.result.content[0].text).toBe("s")
    }))

  it.scopedLive("stateless requests with the same id, at once: each gets its own progress and result, under its id", () =>
    Effect.gen(function*() {
      const RequestIdTool = McpServer.tool({
        name: "request-id",
        input: Schema.Struct({}),
        handler: () => Effect.map(RequestContext.RequestContext, (ctx) => `id ${JSON.stringify(ctx.requestId)}`)
      })
      const { url } = yield* serve({ responseMode: "sse" }, Layer.merge(tools(), RequestIdTool))
      const counting = (to: number) =>
        post(url, call(7, "count", { to, delayMs: 5 }, { _meta: { ...meta2026, progressToken: `t${to}` } }), {
          ...headers2026("tools/call", "count")
        }).pipe(Effect.flatMap(messages))
      const [three, five] = yield* Effect.all([counting(3), counting(5)], { concurrency: 2 })
      for (const [answer, to] of [[three, 3], [five, 5]] as const) {
        const progress = answer.filter((m) => m.method === "notifications/progress")
        expect(progress.map((m) => [m.params.progressToken, m.params.progress])).toEqual(
          Array.from({ length: to }, (_, i) => [`t${to}`, i + 1])
        )
        const result = answer.find((m) => "result" in m)
        expect(result.id).toBe(7)
        expect(result.result.content[0].text).toBe(`counted to ${to}`)
      }
      const [named] = yield* post(url, call("the-id", "request-id", {}, { _meta: meta2026 }), {
        ...headers2026("tools/call", "request-id")
      }).pipe(Effect.flatMap(messages))
      expect(named.id).toBe("the-id")
      expect(named.result.content[0].text).toBe(`id "the-id"`)
    }))

  it.scopedLive("GET and DELETE get 405", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      expect((yield* get(url, { "mcp-protocol-version": "2026-07-28" })).status).toBe(405)
      const del = yield* Effect.promise(() =>
        fetch(url, { method: "DELETE", headers: { "mcp-protocol-version": "2026-07-28" } })
      )
      expect(del.status).toBe(405)
    }))

  it.scopedLive("headers that do not match the body get 400 with -32020", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const cases: Array<[Record<string, string>, unknown]> = [
        [headers2026("tools/list"), echo2026(1, "x")],
        [headers2026("tools/call", "other"), echo2026(2, "x")],
        [headers2026("tools/call"), echo2026(3, "x")],
        [{ "mcp-method": "tools/call", "mcp-name": "echo" }, echo2026(4, "x")],
        [{ ...headers2026("tools/call", "echo"), "mcp-protocol-version": "2025-11-25" }, echo2026(5, "x")],
        [{ "mcp-protocol-version": "2026-07-28", "mcp-name": "echo" }, echo2026(6, "x")]
      ]
      for (const [headers, body] of cases) {
        const res = yield* post(url, body, headers)
        expect(res.status).toBe(400)
        const [answer] = yield* messages(res)
        expect(answer.error.code).toBe(-32020)
      }
    }))

  it.scopedLive("Mcp-Name in the Base64 sentinel form is decoded before the comparison", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const encoded = `=?base64?${btoa("echo")}?=`
      const res = yield* post(url, echo2026(1, "b64"), headers2026("tools/call", encoded))
      expect(res.status).toBe(200)
    }))

  it.scopedLive("a batch gets 400; an unknown method 404 with -32601; an unsupported revision 400 with -32022", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const batch = yield* post(url, [echo2026(1, "x")], headers2026("tools/call", "echo"))
      expect(batch.status).toBe(400)
      const unknown = yield* post(url, { jsonrpc: "2.0", id: 2, method: "nope/nothing", params: { _meta: meta2026 } }, {
        ...headers2026("nope/nothing")
      })
      expect(unknown.status).toBe(404)
      expect((yield* messages(unknown))[0].error.code).toBe(-32601)
      const future = { ...meta2026, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }
      const unsupported = yield* post(url, { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: future } }, {
        "mcp-protocol-version": "2099-01-01",
        "mcp-method": "tools/list"
      })
      expect(unsupported.status).toBe(400)
      expect((yield* messages(unsupported))[0].error.code).toBe(-32022)
    }))

  it.scopedLive("closing the response stream cancels the request", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const { url } = yield* serve(
        {},
        tools({
          onSlowStarted: Deferred.succeed(started, undefined),
          onSlowInterrupted: Deferred.succeed(interrupted, undefined)
        })
      )
      const abort = new AbortController()
      const pending = fetch(url, {
        method: "POST",
        headers: postHeaders(headers2026("tools/call", "slow")),
        body: JSON.stringify(call(1, "slow", {}, { _meta: meta2026 })),
        signal: abort.signal
      }).catch(() => undefined)
      yield* Deferred.await(started)
      abort.abort()
      yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      yield* Effect.promise(() => pending)
    }))

  it.scopedLive(
    "200 stateless requests, all with id 1, cancelled mid-flight: every handler ends, nothing stays counted",
    () =>
      Effect.gen(function*() {
        const N = 200
        let started = 0
        let interrupted = 0
        const allStarted = yield* Deferred.make<void>()
        const allInterrupted = yield* Deferred.make<void>()
        const { server, url } = yield* serve(
          {},
          tools({
            onSlowStarted: Effect.suspend(() =>
              ++started === N ? Deferred.succeed(allStarted, undefined) : Effect.void
            ),
            onSlowInterrupted: Effect.suspend(() =>
              ++interrupted === N ? Deferred.succeed(allInterrupted, undefined) : Effect.void
            )
          })
        )
        const aborts = Array.from({ length: N }, () => new AbortController())
        const pending = aborts.map((abort) =>
          fetch(url, {
            method: "POST",
            headers: postHeaders(headers2026("tools/call", "slow")),
            body: JSON.stringify(call(1, "slow", {}, { _meta: meta2026 })),
            signal: abort.signal
          }).catch(() => undefined)
        )
        yield* Deferred.await(allStarted).pipe(Effect.timeout("30 seconds"))
        expect(server.stats()).toMatchObject({ connections: N, inFlight: N })
        for (const abort of aborts) abort.abort()
        yield* Deferred.await(allInterrupted).pipe(Effect.timeout("30 seconds"))
        expect(interrupted).toBe(N)
        yield* Effect.promise(() => Promise.all(pending))
        expect(server.stats()).toEqual({ connections: 0, inFlight: 0, pending: 0 })
      }),
    60_000
  )
})

describe("security", () => {
  it.scopedLive("a bad Origin gets 403; a localhost Origin passes", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const bad = yield* post(url, initialize("2025-11-25"), { origin: "http://evil.example" })
      expect(bad.status).toBe(403)
      const good = yield* post(url, initialize("2025-11-25"), { origin: "http://localhost:5173" })
      expect(good.status).toBe(200)
    }))

  it.scopedLive("a bad Host gets 403 (DNS rebinding); allowedHosts widens the list", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const bad = yield* rawRequest(url, {
        method: "POST",
        headers: { ...postHeaders(), host: "evil.example:80" },
        body: JSON.stringify(initialize("2025-11-25"))
      })
      expect(bad.status).toBe(403)
      const custom = yield* serve({ allowedHosts: ["mcp.example.com"] })
      const ok = yield* rawRequest(custom.url, {
        method: "POST",
        headers: { ...postHeaders(), host: "mcp.example.com" },
        body: JSON.stringify(initialize("2025-11-25"))
      })
      expect(ok.status).toBe(200)
    }))

  it.scopedLive("an oversized body gets 413", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const huge = JSON.stringify({ ...initialize("2025-11-25"), padding: "x".repeat(5 * 1024 * 1024) })
      const res = yield* rawRequest(url, { method: "POST", headers: postHeaders(), body: huge })
      expect(res.status).toBe(413)
      const small = yield* serve({ maxBodySize: 1000 })
      const chunked = yield* Effect.promise(() =>
        fetch(small.url, {
          method: "POST",
          headers: postHeaders(),
          body: new Blob([JSON.stringify({ ...initialize("2025-11-25"), padding: "y".repeat(2000) })]).stream(),
          duplex: "half"
        } as RequestInit)
      )
      expect(chunked.status).toBe(413)
    }))

  it.scopedLive("authentication: 401 with WWW-Authenticate naming the RFC 9728 metadata, which is served", () =>
    Effect.gen(function*() {
      const { origin, url } = yield* serve({
        authenticate: McpHttpServer.bearer((token) =>
          token === "t0ken"
            ? Effect.succeed({ token })
            : Effect.fail(new McpHttpServer.Unauthorized({ reason: "unknown token" }))
        ),
        protectedResource: {
          resource: "https://mcp.example.com/mcp",
          authorizationServers: ["https://auth.example.com"],
          scopesSupported: ["mcp"]
        }
      })
      const none = yield* post(url, initialize("2025-11-25"))
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toContain(
        "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
      )
      const bad = yield* post(url, initialize("2025-11-25"), { authorization: "Bearer nope" })
      expect(bad.status).toBe(401)
      expect(bad.headers.get("www-authenticate")).toContain("error=\"invalid_token\"")
      const good = yield* post(url, initialize("2025-11-25"), { authorization: "Bearer t0ken" })
      expect(good.status).toBe(200)
      for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
        const metadata = yield* Effect.promise(() => fetch(`${origin}${path}`).then((r) => r.json()))
        expect(metadata).toEqual({
          resource: "https://mcp.example.com/mcp",
          authorization_servers: ["https://auth.example.com"],
          bearer_methods_supported: ["header"],
          scopes_supported: ["mcp"]
        })
      }
    }))

  it.scopedLive("a session is bound to the authenticated client that created it", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({
        authenticate: McpHttpServer.bearer((token) =>
          token.endsWith("-token")
            ? Effect.succeed({ token, clientId: token.slice(0, -6) })
            : Effect.fail(new McpHttpServer.Unauthorized({ reason: "unknown token" }))
        )
      })
      const init = yield* post(url, initialize("2025-11-25"), { authorization: "Bearer alice-token" })
      const sessionId = init.headers.get("mcp-session-id")!
      const ping = { jsonrpc: "2.0", id: 1, method: "ping" }
      const alice = yield* post(url, ping, { authorization: "Bearer alice-token", "mcp-session-id": sessionId })
      expect(alice.status).toBe(200)
      const bob = yield* post(url, ping, { authorization: "Bearer bob-token", "mcp-session-id": sessionId })
      expect(bob.status).toBe(404)
    }))
})

describe("the event store", () => {
  /** An in-memory store that records the stream of every append. */
  const recording = () => {
    const appended: Array<string> = []
    const memory = EventStore.makeMemory()
    const store: EventStore.EventStoreService = {
      ...memory,
      append: (session, stream, seq, message) =>
        Effect.zipRight(Effect.sync(() => void appended.push(stream)), memory.append(session, stream, seq, message))
    }
    return { appended, layer: Layer.merge(tools(), Layer.succeed(EventStore.EventStore, store)) }
  }

  it.scopedLive("keeps what an SSE answer sent, not the responses answered as JSON", () =>
    Effect.gen(function*() {
      const { appended, layer } = recording()
      const { url } = yield* serve({}, layer)
      const { headers } = yield* openSession(url)
      for (let id = 1; id <= 20; id++) {
        const res = yield* post(url, call(id, "echo", { text: `e${id}` }), headers)
        expect(res.headers.get("content-type")).toContain("application/json")
        expect((yield* messages(res))[0].result.content[0].text).toBe(`e${id}`)
      }
      expect(appended.filter((key) => key.startsWith("p"))).toEqual([])
      const res = yield* post(url, call(21, "count", { to: 2 }, { _meta: { progressToken: "t" } }), headers)
      const events = yield* readEvents(res, (events) => events.some((e) => e.data.includes("counted")))
      expect(events.filter((e) => e.data !== "").length).toBe(3)
      const streams = appended.filter((key) => key.startsWith("p"))
      expect(streams.length).toBe(3)
      expect(new Set(streams).size).toBe(1)
    }))
})
