import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { connect, initialize, post, readEvents, serve } from "./helpers.js"

describe("the deprecated HTTP+SSE transport (2024-11-05)", () => {
  it.scopedLive("GET /sse names the message endpoint; POSTs get 202 and their answers arrive on the stream", () =>
    Effect.gen(function*() {
      const { origin } = yield* serve({ legacySse: true })
      const stream = yield* Effect.promise(() => fetch(`${origin}/sse`, { headers: { accept: "text/event-stream" } }))
      expect(stream.status).toBe(200)
      const reader = stream.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes("\n\n")) text += decoder.decode((yield* Effect.promise(() => reader.read())).value)
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(text)![1]!
      expect(endpoint).toMatch(/^\/messages\?sessionId=[0-9a-f]{32}$/)
      const accepted = yield* post(`${origin}${endpoint}`, initialize("2024-11-05"))
      expect(accepted.status).toBe(202)
      while (!text.includes("protocolVersion")) {
        text += decoder.decode((yield* Effect.promise(() => reader.read())).value)
      }
      expect(text).toContain("\"protocolVersion\":\"2024-11-05\"")
      yield* Effect.promise(() => reader.cancel())
      const unknown = yield* post(`${origin}/messages?sessionId=nope`, initialize("2024-11-05"))
      expect(unknown.status).toBe(404)
    }))

  it.scopedLive("McpHttpClient falls back to it when the first POST gets 404, and calls work with progress", () =>
    Effect.gen(function*() {
      const { origin } = yield* serve({ legacySse: true })
      const client = yield* connect(`${origin}/sse`, { revision: "2024-11-05" })
      expect(client.revision).toBe("2024-11-05")
      expect((yield* client.listTools()).map((t) => t.name)).toContain("echo")
      const events = Chunk.toReadonlyArray(yield* client.callToolStream("count", { to: 2 }).pipe(Stream.runCollect))
      expect(events.map((e) => e._tag)).toEqual(["Progress", "Progress", "Result"])
    }))

  it.scopedLive("without legacySse the endpoints do not exist", () =>
    Effect.gen(function*() {
      const { origin } = yield* serve()
      const res = yield* Effect.promise(() => fetch(`${origin}/sse`, { headers: { accept: "text/event-stream" } }))
      expect(res.status).toBe(404)
      yield* readEvents(res, () => true)
    }))
})
