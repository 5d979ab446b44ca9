/**
 * Backpressure over Streamable HTTP: a handler that floods progress onto a client that stops reading its
 * SSE response waits for the reader instead of filling memory, in a session and statelessly, once the documented
 * 256 messages wait (plus only what the sockets hold); the server keeps serving everyone else, and the flood
 * completes (or is cancelled) once the reader is back (or gone).
 * A session's standalone stream, which nobody may be reading, keeps only its newest messages.
 */
import { McpServer } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { existsSync, readFileSync } from "node:fs"
import { messages, meta2026, openSession, post, readEvents, serve, tools } from "./helpers.js"

// 1,000 progress notifications of 100 KB: 100 MB if nothing pushed back.
const COUNT = 1_000
const SIZE = 100_000

// The documented bound: at most 256 messages that are not final wait per POST stream (docs/reliability.md).
const WINDOW = 256
// The slack on top of it is bytes, not messages: what the writer took from the queue already sits in the loopback
// socket's send buffer (Linux grows it up to tcp_wmem's maximum, 4 MiB here), in node's write buffer (16 KiB before
// `write` asks to wait) and in the reader's receive window and fetch's body buffer (about 256 KiB more on Node 20,
// some 2 MB on Node 22: 3 MiB are allowed). Measured: the flood stalls at 296 notifications of 100 KB (40 past the
// window, 4 MB) on both adapters on Node 20, at 318 on Node 22, and at 654 to 680 of 10 KB (400 past it), which is
// why the notifications are large. Doubling the window makes it stall at about 552.
const sendBuffer = existsSync("/proc/sys/net/ipv4/tcp_wmem")
  ? Number(readFileSync("/proc/sys/net/ipv4/tcp_wmem", "utf8").trim().split(/\s+/)[2])
  : 4 * 1024 * 1024
const SLACK = Math.ceil((sendBuffer + 3 * 1024 * 1024) / SIZE)

const flood = (id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "flood", arguments: { count: COUNT, size: SIZE }, _meta: { progressToken: "p", ...extra } }
})

/**
 * Waits until `sent` has filled the window (20 s at most), then until it stops moving for 300 ms; returns where it
 * stopped. Nothing announces that a handler is held back, so this watches the count (bounded by the flood: at
 * COUNT it stops moving too).
 */
const stalled = (sent: () => number) =>
  Effect.gen(function*() {
    for (let waited = 0; sent() < WINDOW && waited < 20_000; waited += 10) yield* Effect.sleep("10 millis")
    let last = -1
    while (sent() !== last) {
      last = sent()
      yield* Effect.sleep("300 millis")
    }
    return last
  })

/** Cancels a body left unread (when a check failed), so that the server's scope can close. */
const dropBody = (response: Response) =>
  Effect.promise(() => response.body?.cancel().catch(() => undefined) ?? Promise.resolve())

const echo = { jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }

describe("backpressure", () => {
  it.scopedLive(
    "a session's SSE reader that stops reading holds the flooding handler back",
    () =>
      Effect.gen(function*() {
        let sent = 0
        const { url } = yield* serve({ responseMode: "sse" }, tools({ onFloodProgress: (n) => void (sent = n) }))
        const { headers } = yield* openSession(url)
        const response = yield* post(url, flood(1), headers)
        yield* Effect.addFinalizer(() => dropBody(response))
        expect(response.status).toBe(200)
        // Nobody reads the body: the handler fills the window, then stops (within what the sockets hold).
        const stopped = yield* stalled(() => sent)
        expect(stopped).toBeGreaterThanOrEqual(WINDOW)
        expect(stopped).toBeLessThanOrEqual(WINDOW + SLACK)
        // Meanwhile the server serves other requests.
        const other = yield* post(url, echo, headers)
        expect(yield* Effect.promise(() => other.text())).toContain("\"hi\"")
        // Reading again lets the flood finish, with every notification and the result.
        const text = yield* Effect.promise(() => response.text())
        expect(sent).toBe(COUNT)
        expect(text.split("notifications/progress").length - 1).toBe(COUNT)
        expect(text).toContain(`flooded ${COUNT}`)
      }),
    60_000
  )

  it.scopedLive("2026-07-28: the same, and cancelling the response ends the handler", () =>
    Effect.gen(function*() {
      let sent = 0
      const { server, url } = yield* serve({ responseMode: "sse" }, tools({ onFloodProgress: (n) => void (sent = n) }))
      const response = yield* post(url, flood(1, meta2026), {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "flood"
      })
      yield* Effect.addFinalizer(() => dropBody(response))
      expect(response.status).toBe(200)
      const stopped = yield* stalled(() => sent)
      expect(stopped).toBeGreaterThanOrEqual(WINDOW)
      expect(stopped).toBeLessThanOrEqual(WINDOW + SLACK)
      expect(server.stats().inFlight).toBe(1)
      yield* Effect.promise(() => response.body!.cancel())
      // No event says the server stopped counting the request: its count is polled, for 5 s at most.
      yield* Effect.suspend(() => server.stats().inFlight > 0 ? Effect.fail("still in flight") : Effect.void).pipe(
        Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 500 }),
        Effect.orDie
      )
      expect(sent).toBeLessThan(COUNT)
      expect(server.stats()).toMatchObject({ connections: 0, inFlight: 0 })
    }), 60_000)

  it.scopedLive(
    "a session's standalone stream keeps the newest 1,024 messages while nobody listens",
    () =>
      Effect.gen(function*() {
        const resource = (uri: string) => McpServer.resource({ uri, name: uri, read: Effect.succeed("text") })
        const { server, url } = yield* serve(
          {},
          Layer.mergeAll(tools(), resource("file:///older"), resource("file:///newer"))
        )
        const { headers } = yield* openSession(url)
        for (const [id, uri] of [[1, "file:///older"], [2, "file:///newer"]] as const) {
          const answer = yield* messages(
            yield* post(url, {
              jsonrpc: "2.0",
              id,
              method: "resources/subscribe",
              params: { uri }
            }, headers)
          )
          expect(answer).toEqual([{ jsonrpc: "2.0", id, result: {} }])
        }
        // Nobody has opened the GET stream: 3,000 updates of one resource, then 10 of the other, go to it.
        for (let i = 0; i < 3_000; i++) yield* server.notifyResourceUpdated("file:///older")
        for (let i = 0; i < 10; i++) yield* server.notifyResourceUpdated("file:///newer")
        const stream = yield* Effect.promise(() =>
          fetch(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } })
        )
        expect(stream.status).toBe(200)
        const uris = (yield* readEvents(
          stream,
          (events) => events.filter((e) => e.data.includes("file:///newer")).length === 10
        ).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "the newest updates never came" })))
          .filter((e) => e.data !== "")
          .map((e) => JSON.parse(e.data).params.uri)
        // The newest 1,024 and nothing older: the 10 newest last, after 1,014 of the 3,000 before them.
        expect(uris.length).toBe(1_024)
        expect(uris.slice(0, 1_014).every((uri) => uri === "file:///older")).toBe(true)
        expect(uris.slice(1_014)).toEqual(Array(10).fill("file:///newer"))
        // The session serves on.
        const after = yield* post(url, echo, headers)
        expect(yield* Effect.promise(() => after.text())).toContain("\"hi\"")
      }),
    60_000
  )
})
