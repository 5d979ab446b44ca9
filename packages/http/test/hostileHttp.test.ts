/**
 * Hostile clients over real HTTP: values nested thousands of levels deep in every field of a POST, in a session
 * and statelessly under 2026-07-28, and over-long batches. Each request is answered with its own id (never a 500
 * with id null), the server's routing and tracking entries are released, and the server serves on.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { messages, meta2026, openSession, post, postHeaders, serve, tools } from "./helpers.js"

/** JSON text of an array nested `depth` levels deep. */
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** POSTs raw JSON text and reads the one JSON-RPC answer (JSON or a one-event SSE stream). */
const postText = (url: string, body: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", headers: postHeaders(headers), body })
    const text = await response.text()
    const data = response.headers.get("content-type")?.includes("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("")
      : text
    return { status: response.status, body: data === "" ? undefined : JSON.parse(data) }
  })

/** Frames whose field at some place holds `v`, each for the method and name it names. */
const frames: ReadonlyArray<
  { readonly method: string; readonly name?: string; readonly frame: (v: string, id: number, meta: string) => string }
> = [
  {
    method: "tools/call",
    name: "echo",
    frame: (v, id, meta) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":${v}}${meta}}}`
  },
  {
    method: "tools/call",
    name: "echo",
    frame: (v, id, meta) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${v}${meta}}}`
  },
  {
    method: "tools/list",
    frame: (v, id, meta) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"cursor":${v}${meta}}}`
  },
  {
    method: "ping",
    frame: (v, id, meta) => `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"extra":${v}${meta}}}`
  }
]

describe("a hostile client over Streamable HTTP", () => {
  it.scopedLive("deep values in a 2025-11-25 session: each answered with its id; nothing stays in flight", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const { headers } = yield* openSession(url)
      let id = 0
      for (const depth of [5_000, 100_000]) {
        for (const { frame } of frames) {
          const answer = yield* postText(url, frame(deep(depth), ++id, ""), headers)
          expect(answer.status).toBe(200)
          expect(answer.body).toMatchObject({ id, error: { code: -32602 } })
          // The id is free again at once.
          const again = yield* postText(url, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, headers)
          expect(again.body).toEqual({ jsonrpc: "2.0", id, result: {} })
        }
      }
      const badId = yield* postText(url, `{"jsonrpc":"2.0","id":${deep(5_000)},"method":"ping"}`, headers)
      expect(badId.status).toBe(400)
      expect(badId.body).toMatchObject({ id: null, error: { code: -32600 } })
      expect(server.stats()).toMatchObject({ inFlight: 0, pending: 0 })
    }))

  it.scopedLive("deep values in stateless 2026-07-28 requests: each answered with its id; nothing is left behind", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serve()
      const meta = `,"_meta":${JSON.stringify(meta2026)}`
      const before = server.stats()
      let id = 0
      for (const depth of [5_000, 100_000]) {
        for (const { frame, method, name } of frames) {
          const headers = {
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
            ...(name === undefined ? {} : { "mcp-name": name })
          }
          const answer = yield* postText(url, frame(deep(depth), ++id, meta), headers)
          expect(answer.body, `${method} ${depth}`).toMatchObject({ id, error: { code: -32602 } })
        }
      }
      // A tool name nested deep, with a header that names a tool: a bounded header mismatch, never a 500.
      const named = yield* postText(
        url,
        `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":${deep(5_000)}${meta}}}`,
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" }
      )
      expect(named.status).toBe(400)
      expect(named.body).toMatchObject({ id: 99, error: { code: -32020 } })
      expect(JSON.stringify(named.body).length).toBeLessThan(1_000)
      expect(server.stats()).toEqual(before)
    }))

  it.scopedLive("a 2025-03-26 batch of more than 100 messages is refused whole with -32600", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const { headers } = yield* openSession(url, "2025-03-26")
      const pings = (n: number) =>
        JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })))
      const refused = yield* postText(url, pings(10_000), headers)
      expect(refused.body).toMatchObject({ id: null, error: { code: -32600 } })
      const answered = yield* postText(url, pings(100), headers)
      expect(answered.body).toHaveLength(100)
    }))

  it.scopedLive("a cancellation that overtakes its request (another POST) cancels it when it arrives", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const { server, url } = yield* serve(
        {},
        tools({
          onSlowStarted: Deferred.succeed(started, undefined),
          onSlowInterrupted: Deferred.succeed(interrupted, undefined)
        })
      )
      const { headers } = yield* openSession(url)
      const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }
      expect((yield* post(url, cancel, headers)).status).toBe(202)
      const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: {} } }
      const answer = yield* post(url, call, headers).pipe(Effect.timeout("10 seconds"))
      expect(answer.status).toBe(200)
      expect(yield* messages(answer)).toEqual([])
      // The handler either never ran or was interrupted: nothing stays in flight.
      if (yield* Deferred.isDone(started)) yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      expect(server.stats()).toMatchObject({ inFlight: 0, pending: 0 })
      const after = yield* post(url, { ...call, id: 8, params: { name: "echo", arguments: { text: "on" } } }, headers)
      expect((yield* messages(after))[0].result.content[0].text).toBe("on")
    }))
})
