/**
 * Session limits: one client cannot lock the others out. The registry's choices (unit), then over real HTTP on
 * 127.0.0.1 with two clients told apart by their source address (127.0.0.2 and 127.0.0.3, both loopback): idle
 * sessions make room (least recently active first, never one with a stream open or a request in flight), a client over
 * its own bound gets 429, the server full of busy sessions 503, and legacy HTTP+SSE sessions count with the others.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import * as SessionLimits from "../src/internal/sessionLimits.js"
import { initialize, serve, tools } from "./helpers.js"

// ---------- the registry ----------

interface Fake extends SessionLimits.Member {
  readonly name: string
  busy: boolean
}

const fake = (name: string, client: string | undefined, busy = false): Fake => ({
  name,
  client,
  busy,
  idle() {
    return !this.busy
  }
})

const names = (members: ReadonlyArray<Fake>) => members.map((m) => m.name)

describe("SessionLimits registry", () => {
  it("at the server's bound, the least recently active idle session makes room; busy ones never do", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 3, maxSessionsPerClient: 10 })
    const [a, b, c] = [fake("a", "x", true), fake("b", "y"), fake("c", "z")]
    for (const m of [a, b, c]) expect(limits.admit(m)).toEqual({ _tag: "Admitted", evicted: [] })
    limits.touch(b)
    const d = fake("d", "w")
    const first = limits.admit(d)
    expect(first._tag === "Admitted" && names(first.evicted)).toEqual(["c"])
    expect(limits.size()).toBe(3)
    d.busy = true
    b.busy = true
    expect(limits.admit(fake("e", "v"))).toEqual({ _tag: "Refused", status: 503, message: SessionLimits.serverFull })
    expect(limits.size()).toBe(3)
    b.busy = false
    const second = limits.admit(fake("f", "v"))
    expect(second._tag === "Admitted" && names(second.evicted)).toEqual(["b"])
  })

  it("at its own bound, a client's own idle session makes room (never another client's), else 429", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 10, maxSessionsPerClient: 2 })
    const other = fake("other", "y")
    const [x1, x2] = [fake("x1", "x"), fake("x2", "x")]
    for (const m of [other, x1, x2]) limits.admit(m)
    const x3 = fake("x3", "x", true)
    const admitted = limits.admit(x3)
    expect(admitted._tag === "Admitted" && names(admitted.evicted)).toEqual(["x1"])
    expect(limits.sizeOf("x")).toBe(2)
    x2.busy = true
    expect(limits.admit(fake("x4", "x"))).toEqual({ _tag: "Refused", status: 429, message: SessionLimits.clientFull })
    expect([limits.sizeOf("x"), limits.sizeOf("y"), limits.size()]).toEqual([2, 1, 3])
    // A client that cannot be told apart has no bound of its own.
    for (let i = 0; i < 5; i++) expect(limits.admit(fake(`u${i}`, undefined))._tag).toBe("Admitted")
  })

  it("at both bounds, the client's own idle session and another one make room", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 2, maxSessionsPerClient: 1 })
    const [y, x] = [fake("y", "y"), fake("x", "x")]
    limits.admit(y)
    limits.admit(x)
    // x's own bound frees one place, and the server is then below its bound: only x's session goes.
    const next = limits.admit(fake("x'", "x"))
    expect(next._tag === "Admitted" && names(next.evicted)).toEqual(["x"])
    limits.remove(x)
    expect(limits.size()).toBe(2)
  })

  it("clients by address: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64", () => {
    expect(SessionLimits.addressKey("127.0.0.2")).toBe("127.0.0.2")
    expect(SessionLimits.addressKey("::ffff:127.0.0.2")).toBe("127.0.0.2")
    expect(SessionLimits.addressKey("::1")).toBe("::1")
    expect(SessionLimits.addressKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64")
    expect(SessionLimits.addressKey("2001:DB8:1:2::7%eth0")).toBe("2001:db8:1:2::/64")
    expect(SessionLimits.addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64")
    expect(SessionLimits.addressKey("fe80::1:2:3:4")).toBe("fe80:0:0:0::/64")
  })
})

// ---------- over HTTP ----------

interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

const postHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** One whole exchange from the given loopback source address. */
const send = (
  url: string,
  from: string,
  init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: unknown }
): Effect.Effect<Answer> =>
  Effect.async((resume) => {
    const target = new URL(url)
    const req = Http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: init.method ?? "POST",
      headers: init.headers ?? postHeaders,
      localAddress: from,
      agent: false
    }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (body += c))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
    })
    req.on("error", (e) => resume(Effect.die(e)))
    req.end(init.body === undefined ? undefined : JSON.stringify(init.body))
  })

/** A streaming GET from the given source address, open (its head read) until the scope closes. */
const openStream = (
  url: string,
  from: string,
  headers: Record<string, string>
): Effect.Effect<{ readonly status: number; readonly headers: Http.IncomingHttpHeaders }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly req: Http.ClientRequest; readonly res: Http.IncomingMessage }>((resume) => {
      const target = new URL(url)
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: "GET",
        headers: { accept: "text/event-stream", ...headers },
        localAddress: from,
        agent: false
      }, (res) => resume(Effect.succeed({ req, res })))
      req.on("error", (e) => resume(Effect.die(e)))
      req.end()
    }),
    ({ req }) => Effect.sync(() => req.destroy())
  ).pipe(Effect.map(({ res }) => ({ status: res.statusCode ?? 0, headers: res.headers })))

const A = "127.0.0.2"
const B = "127.0.0.3"

/** Opens an idle session from `from`: initialize and initialized; its headers, or the refusal. */
const open = (url: string, from: string) =>
  Effect.gen(function*() {
    const init = yield* send(url, from, { body: initialize("2025-11-25") })
    const id = init.headers["mcp-session-id"]
    if (init.status !== 200 || typeof id !== "string") return { refused: init } as const
    const headers = { ...postHeaders, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }
    const ack = yield* send(url, from, { headers, body: { jsonrpc: "2.0", method: "notifications/initialized" } })
    expect(ack.status).toBe(202)
    return { headers } as const
  })

const opened = (url: string, from: string) =>
  Effect.flatMap(open(url, from), (o) =>
    o.headers === undefined
      ? Effect.dieMessage(`refused: ${o.refused.status} ${o.refused.body}`)
      : Effect.succeed(o.headers))

const ping = (url: string, from: string, headers: Record<string, string>) =>
  send(url, from, { headers, body: { jsonrpc: "2.0", id: 7, method: "ping" } })

const errorOf = (answer: Answer) => JSON.parse(answer.body) as { id: unknown; error: { code: number; message: string } }

describe("session limits over HTTP", () => {
  it.scopedLive("one client filling the server with idle sessions does not lock out another: its oldest goes", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxSessions: 20 })
      const mine: Array<Record<string, string>> = []
      for (let i = 0; i < 20; i++) mine.push(yield* opened(url, A))
      const other = yield* open(url, B)
      expect(other.refused).toBeUndefined()
      // The least recently active session made room: its next request is told the session is gone (404).
      const gone = yield* ping(url, A, mine[0]!)
      expect(gone.status).toBe(404)
      expect(errorOf(gone).error).toEqual({ code: -32001, message: "Session not found" })
      for (const headers of [...mine.slice(1), other.headers!]) expect((yield* ping(url, A, headers)).status).toBe(200)
    }))

  it.scopedLive("eviction picks the least recently active idle session, never one with a stream open or a request in flight", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const { server, url } = yield* serve(
        { maxSessions: 4 },
        tools({ onSlowStarted: Deferred.succeed(started, undefined) })
      )
      const streaming = yield* opened(url, A)
      const working = yield* opened(url, A)
      const idleOld = yield* opened(url, A)
      const idleNew = yield* opened(url, A)
      // The oldest two are busy: one holds its standalone GET stream open, the other a tool call in flight.
      const stream = yield* openStream(url, A, { "mcp-session-id": streaming["mcp-session-id"]! })
      expect(stream.status).toBe(200)
      yield* Effect.forkScoped(send(url, A, {
        headers: working,
        body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: {} } }
      }))
      yield* Deferred.await(started)
      expect(server.stats().inFlight).toBe(1)
      // Every session was touched in order, so `idleOld` is the least recently active idle one, then `idleNew`.
      const second = yield* opened(url, B)
      expect((yield* ping(url, A, idleOld)).status).toBe(404)
      expect((yield* ping(url, A, idleNew)).status).toBe(200)
      // Pinged just now, `idleNew` is more recent than B's first session, which goes next.
      const third = yield* opened(url, B)
      expect((yield* ping(url, B, second)).status).toBe(404)
      for (const headers of [idleNew, third, working, streaming]) {
        expect((yield* ping(url, A, headers)).status).toBe(200)
      }
      expect(server.stats().inFlight).toBe(1)
    }))

  it.scopedLive("a server full of busy sessions refuses a new one with 503 and a JSON-RPC error", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxSessions: 2 })
      for (let i = 0; i < 2; i++) {
        const headers = yield* opened(url, A)
        expect((yield* openStream(url, A, { "mcp-session-id": headers["mcp-session-id"]! })).status).toBe(200)
      }
      const refused = yield* send(url, B, { body: initialize("2025-11-25", 5) })
      expect(refused.status).toBe(503)
      expect(refused.headers["content-type"]).toBe("application/json")
      expect(errorOf(refused)).toMatchObject({ id: null, error: { code: -32000, message: "Too many sessions" } })
    }))

  it.scopedLive("a client at its own bound gets 429 while every session of its own is busy; another client is served", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxSessions: 20, maxSessionsPerClient: 3 })
      const first = yield* opened(url, B)
      for (let i = 0; i < 3; i++) {
        const headers = yield* opened(url, A)
        expect((yield* openStream(url, A, { "mcp-session-id": headers["mcp-session-id"]! })).status).toBe(200)
      }
      const refused = yield* send(url, A, { body: initialize("2025-11-25") })
      expect(refused.status).toBe(429)
      expect(errorOf(refused)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: SessionLimits.clientFull }
      })
      expect((yield* open(url, B)).refused).toBeUndefined()
      // B's older idle session was not taken for A.
      expect((yield* ping(url, B, first)).status).toBe(200)
    }))

  it.scopedLive("a client at its own bound with idle sessions loses its own oldest, not another client's older one", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxSessions: 20, maxSessionsPerClient: 3 })
      const others = yield* opened(url, B)
      const mine: Array<Record<string, string>> = []
      for (let i = 0; i < 4; i++) mine.push(yield* opened(url, A))
      expect((yield* ping(url, A, mine[0]!)).status).toBe(404)
      for (const headers of [...mine.slice(1), others]) expect((yield* ping(url, A, headers)).status).toBe(200)
    }))

  it.scopedLive("legacy HTTP+SSE sessions count with the others: bounded per client, and idle sessions make room", () =>
    Effect.gen(function*() {
      const { origin, url } = yield* serve({ legacySse: true, maxSessions: 3, maxSessionsPerClient: 2 })
      const idle = yield* opened(url, B)
      for (let i = 0; i < 2; i++) expect((yield* openStream(`${origin}/sse`, A, {})).status).toBe(200)
      expect((yield* openStream(`${origin}/sse`, A, {})).status).toBe(429)
      // The server is full (two legacy streams, one idle session): B's idle session makes room for B's stream.
      expect((yield* openStream(`${origin}/sse`, B, {})).status).toBe(200)
      expect((yield* ping(url, B, idle)).status).toBe(404)
      // Now every session is a live stream: the next one is refused.
      expect((yield* send(url, B, { body: initialize("2025-11-25") })).status).toBe(503)
    }))
})
