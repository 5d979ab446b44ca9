import { ClientHandlers, McpClient, Transport } from "@effect-mcp/core"
import { McpHttpClient, McpHttpServer, McpNodeHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import { adapter, connect, serve, tools } from "./helpers.js"

const eras = [
  { name: "2025-11-25 session", revision: "2025-11-25" as const },
  { name: "2025-03-26 session", revision: "2025-03-26" as const },
  { name: "2026-07-28 stateless", revision: undefined }
]

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/** Forks `effect` (a reader of a client's notifications) and returns once it waits on its subscription. */
const listening = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    yield* Effect.repeat(Fiber.status(fiber), { until: FiberStatus.isSuspended })
    return fiber
  })

/** Polls `done` every 10 ms until it holds, for a condition no event announces; fails naming `what` after 5 s. */
const until = (what: string, done: () => boolean) =>
  Effect.suspend(() => (done() ? Effect.void : Effect.fail(new Error(`not within 5 s: ${what}`)))).pipe(
    Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 500 }),
    Effect.orDie
  )

/** A 2025-11-25 McpClient of `url` whose every HTTP exchange is shown to `seen` (request and response). */
const recorded = (
  url: string,
  seen: (request: McpHttpClient.OutgoingRequest, response: McpHttpClient.IncomingResponse) => void
) =>
  Effect.gen(function*() {
    const base = adapter !== "platform"
      ? McpNodeHttpClient.execute(yield* McpNodeHttpClient.agents)
      : McpHttpClient.platformExecute(yield* Effect.provide(HttpClient.HttpClient, NodeHttpClient.layer))
    const recording: McpHttpClient.Execute = (request) =>
      Effect.tap(base(request), (response) => Effect.sync(() => seen(request, response)))
    const transport = yield* McpHttpClient.makeWith({ url }, recording)
    return yield* McpClient.make({ name: "t", version: "0", revision: "2025-11-25" }).pipe(
      Effect.provideService(Transport.Transport, transport)
    )
  })

/** Whether an exchange opened the standalone GET stream. */
const openedStream = (request: McpHttpClient.OutgoingRequest, response: McpHttpClient.IncomingResponse) =>
  request.method === "GET" && response.status === 200

/**
 * A proxy on 127.0.0.1 in front of `target` that answers without Content-Length: each JSON answer goes out
 * chunked, in 4 KiB pieces, so the client cannot know its size before it reads it. Stops with the scope.
 */
const chunkingProxy = (target: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly close: () => void }>((resume) => {
      const upstream = new URL(target)
      const proxy = createServer((req, res) => {
        const forward = httpRequest(
          { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            const { "content-length": _length, ...headers } = answer.headers
            res.writeHead(answer.statusCode ?? 502, headers)
            answer.on("data", (chunk: Buffer) => {
              for (let i = 0; i < chunk.length; i += 4096) res.write(chunk.subarray(i, i + 4096))
            })
            answer.on("end", () => res.end())
          }
        )
        forward.on("error", () => res.destroy())
        req.pipe(forward)
      })
      proxy.listen(0, "127.0.0.1", () => {
        const { port } = proxy.address() as AddressInfo
        resume(Effect.succeed({
          url: `http://127.0.0.1:${port}${upstream.pathname}`,
          close: () => {
            proxy.closeAllConnections()
            proxy.close()
          }
        }))
      })
    }),
    (proxy) => Effect.sync(proxy.close)
  )

describe.each(eras)("McpHttpClient against McpHttpServer, $name", ({ revision }) => {
  const pin = revision === undefined ? {} : { revision }

  it.scopedLive("initialize, list tools, call echo", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const client = yield* connect(url, pin)
      expect(client.revision).toBe(revision ?? "2026-07-28")
      expect(client.stateless).toBe(revision === undefined)
      const listed = yield* client.listTools()
      expect(listed.map((t) => t.name)).toEqual(["echo", "count", "flood", "slow", "greet", "whoami"])
      const result = yield* client.callTool("echo", { text: "hello over HTTP" })
      expect(text(result)).toBe("hello over HTTP")
    }))

  it.scopedLive("progress arrives before the result", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const client = yield* connect(url, pin)
      const events = yield* client.callToolStream("count", { to: 3 }).pipe(Stream.runCollect)
      const all = Chunk.toReadonlyArray(events)
      expect(all.filter((e) => e._tag === "Progress").map((e) => e._tag === "Progress" && e.progress.progress))
        .toEqual([1, 2, 3])
      const last = all[all.length - 1]!
      expect(last._tag === "Result" && text(last.result)).toBe("counted to 3")
    }))

  it.scopedLive("interrupting a call cancels the handler on the server", () =>
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
      const client = yield* connect(url, pin)
      const call = yield* Effect.fork(client.callTool("slow", {}))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(call)
      yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      // The connection still works afterwards.
      expect(text(yield* client.callTool("echo", { text: "after" }))).toBe("after")
    }))

  it.scopedLive("elicitation reaches the client's handler (a server→client request, or input_required under 2026)", () =>
    Effect.gen(function*() {
      // 2025-03-26 has no elicitation.
      if (revision === "2025-03-26") return
      const { url } = yield* serve()
      const client = yield* connect(url, pin).pipe(
        Effect.provideService(ClientHandlers.ElicitationHandler, {
          elicit: () => Effect.succeed({ action: "accept", content: { name: "Ada" } })
        })
      )
      expect(text(yield* client.callTool("greet", {}))).toBe("hello Ada")
    }))

  // Five waves of 64 calls in flight, each answered with its own text (a throughput run is the benchmarks' job).
  it.scopedLive("320 calls with 64 in flight", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const client = yield* connect(url, pin)
      const results = yield* Effect.forEach(
        Array.from({ length: 320 }, (_, i) => i),
        (i) => Effect.map(client.callTool("echo", { text: `n${i}` }), text),
        { concurrency: 64 }
      )
      expect(results).toEqual(Array.from({ length: 320 }, (_, i) => `n${i}`))
    }), 120_000)

  it.scopedLive("an answer above maxMessageBytes fails its call at once, as JSON or as an SSE event; the client carries on", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const client = yield* connect(url, pin, { maxMessageBytes: 32 * 1024 })
      const big = "x".repeat(64 * 1024)
      const json = yield* Effect.flip(client.callTool("echo", { text: big }))
      expect(json.message).toContain("larger than 32768 bytes")
      // A progress token makes the answer an SSE stream: its progress event is the one too large.
      const sse = yield* Effect.flip(Stream.runDrain(client.callToolStream("flood", { count: 1, size: 64 * 1024 })))
      expect(sse.message).toContain("larger than 32768 bytes")
      expect(text(yield* client.callTool("echo", { text: "still here" }))).toBe("still here")
    }))

  it.scopedLive("a chunked answer (no Content-Length) above maxMessageBytes fails its call; the client carries on", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const proxy = yield* chunkingProxy(url)
      const client = yield* connect(proxy.url, pin, { maxMessageBytes: 32 * 1024 })
      // Lengths and messages only: a failure should not print 64 KiB strings.
      expect(text(yield* client.callTool("echo", { text: "y".repeat(16 * 1024) })).length).toBe(16 * 1024)
      const tooBig = yield* Effect.either(client.callTool("echo", { text: "x".repeat(64 * 1024) }))
      expect(tooBig._tag === "Left" ? tooBig.left.message : "the call succeeded").toContain("larger than 32768 bytes")
      expect(text(yield* client.callTool("echo", { text: "still here" }))).toBe("still here")
    }))

  it.scopedLive("the auth hook's identity reaches the handler; a request without a token gets 401", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({
        authenticate: McpHttpServer.bearer((token) =>
          token === "good"
            ? Effect.succeed({ token, clientId: "alice", scopes: ["mcp"] })
            : Effect.fail(new McpHttpServer.Unauthorized({ reason: "bad token" }))
        )
      })
      const client = yield* connect(url, pin, { token: Effect.succeed("good") })
      const who = JSON.parse(text(yield* client.callTool("whoami", {})))
      expect(who).toEqual({ token: "good", clientId: "alice", scopes: ["mcp"] })
      const refused = yield* Effect.either(connect(url, pin, { token: Effect.succeed("bad") }))
      expect(refused._tag).toBe("Left")
    }))
})

describe("McpHttpClient, era-specific behaviour", () => {
  it.scopedLive("the standalone GET stream delivers list_changed", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const opened = yield* Deferred.make<void>()
      const client = yield* recorded(url, (request, response) => {
        if (openedStream(request, response)) Deferred.unsafeDone(opened, Exit.void)
      })
      const changed = yield* listening(client.toolListChanged.pipe(Stream.take(1), Stream.runDrain))
      yield* Deferred.await(opened).pipe(Effect.timeout("5 seconds"))
      yield* server.addTool({ ...server.tools()[0]!, descriptor: { ...server.tools()[0]!.descriptor, name: "echo2" } })
      yield* Fiber.join(changed).pipe(Effect.timeout("5 seconds"))
      expect((yield* client.listTools()).map((t) => t.name)).toContain("echo2")
    }))

  it.scopedLive("a reaped session is re-initialized transparently", () =>
    Effect.gen(function*() {
      // Long enough that a loaded machine's pause between a re-initialize and its notifications/initialized does not
      // reap the new session too (seen at 150 ms on Node 22, under load).
      const { server, url } = yield* serve({ sessionIdleTimeout: "1 second" })
      const client = yield* connect(url, { revision: "2025-06-18" }, { standaloneStream: false })
      expect(text(yield* client.callTool("echo", { text: "one" }))).toBe("one")
      // Nothing tells the client its session was reaped (that is the point): the server's count is polled.
      yield* until("the session was reaped", () => server.stats().connections === 0)
      // The server has forgotten the session; the call still succeeds under a new one.
      expect(text(yield* client.callTool("echo", { text: "two" }))).toBe("two")
    }))

  it.scopedLive("2026-07-28: subscriptions/listen is a long-lived stream that carries list_changed", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve({ keepAliveInterval: "50 millis" })
      const client = yield* connect(url)
      expect(client.stateless).toBe(true)
      const acknowledged = yield* Deferred.make<void>()
      const received = yield* client.listen({ toolsListChanged: true }).pipe(
        Stream.tap(() => Deferred.succeed(acknowledged, undefined)),
        Stream.take(2),
        Stream.runCollect,
        Effect.fork
      )
      // The acknowledgement says the subscription is in place.
      yield* Deferred.await(acknowledged).pipe(Effect.timeout("5 seconds"))
      yield* server.removeTool("echo")
      const [ack, changed] = Chunk.toReadonlyArray(yield* Fiber.join(received).pipe(Effect.timeout("5 seconds")))
      expect(ack!.method).toBe("notifications/subscriptions/acknowledged")
      expect(changed!.method).toBe("notifications/tools/list_changed")
    }))

  it.scopedLive("SSE polling: the server closes connections early and the client resumes with Last-Event-ID", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve({ sseConnectionLifetime: "120 millis", retryInterval: "20 millis" })
      let resumed = 0
      const resumedTwice = yield* Deferred.make<void>()
      const client = yield* recorded(url, (request, response) => {
        if (openedStream(request, response) && request.headers["last-event-id"] !== undefined && ++resumed === 2) {
          Deferred.unsafeDone(resumedTwice, Exit.void)
        }
      })
      const events = yield* client.callToolStream("count", { to: 6, delayMs: 60 }).pipe(Stream.runCollect)
      const all = Chunk.toReadonlyArray(events)
      expect(all.map((e) => (e._tag === "Progress" ? e.progress.progress : "result"))).toEqual([
        1,
        2,
        3,
        4,
        5,
        6,
        "result"
      ])
      // The standalone stream is polled the same way and still delivers, once it was resumed twice.
      const changed = yield* listening(client.toolListChanged.pipe(Stream.take(1), Stream.runDrain))
      yield* Deferred.await(resumedTwice).pipe(Effect.timeout("5 seconds"))
      yield* server.removeTool("echo")
      yield* Fiber.join(changed).pipe(Effect.timeout("5 seconds"))
    }))

  it.scopedLive("a session deleted under an open GET stream: the client continues under a new session", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve({ retryInterval: "50 millis" })
      const seen: Array<string> = []
      const opened = yield* Deferred.make<void>()
      const second = yield* Deferred.make<void>()
      const client = yield* recorded(url, (request, response) => {
        if (openedStream(request, response)) Deferred.unsafeDone(opened, Exit.void)
        const id = response.headers["mcp-session-id"]
        if (id !== undefined && !seen.includes(id)) seen.push(id)
        if (seen.length === 2) Deferred.unsafeDone(second, Exit.void)
      })
      yield* Deferred.await(opened).pipe(Effect.timeout("5 seconds"))
      const first = seen[0]!
      const deleted = yield* Effect.promise(() =>
        fetch(url, { method: "DELETE", headers: { "mcp-session-id": first } })
      )
      expect(deleted.status).toBe(200)
      // The GET stream ends, reconnects, meets 404 and re-initializes; the new stream still delivers.
      yield* Deferred.await(second).pipe(Effect.timeout("5 seconds"))
      expect(seen.length).toBe(2)
      const changed = yield* listening(client.toolListChanged.pipe(Stream.take(1), Stream.runDrain))
      yield* server.removeTool("echo")
      yield* Fiber.join(changed).pipe(Effect.timeout("5 seconds"))
      expect(text(yield* client.callTool("count", { to: 1 }))).toBe("counted to 1")
    }))
})
