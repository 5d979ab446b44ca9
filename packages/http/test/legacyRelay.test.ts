/**
 * The legacy HTTP+SSE transport (2024-11-05) on a server of several processes, here two node:http servers sharing
 * one in-memory `SessionDirectory`: a legacy session is claimed while its stream is open, a POST for it that reaches
 * the other server is relayed to it, and the relay's refusals: an owner that does not answer in time (504), one that
 * is gone (404, its entry forgotten), a directory that is away (503), and session ids that are not ours (404, never
 * looked up). The Redis directory and three processes behind a proxy are examples/everything's clusterSessions test.
 */
import { McpServer } from "@effect-mcp/core"
import { type McpHttpServer, McpNodeHttpServer, SessionDirectory } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { adapter, info, initialize, listenOnLoopback, post, tools } from "./helpers.js"

/** A directory shared by the servers of one test (each with its own view of itself), recording what it was asked. */
const directoryOf = (owners: Map<string, string>, asked: Array<string>, away = false) => {
  let self: string | undefined
  const down = new SessionDirectory.SessionDirectoryError({ reason: "the directory is away" })
  const service: SessionDirectory.SessionDirectoryService = {
    advertise: (origin) => Effect.sync(() => void (self = origin)),
    claim: (id) =>
      away ? Effect.fail(down) : Effect.sync(() => {
        asked.push(`claim ${id}`)
        if (self !== undefined) owners.set(id, self)
      }),
    owner: (id) =>
      away ? Effect.fail(down) : Effect.sync(() => {
        asked.push(`owner ${id}`)
        const owner = owners.get(id)
        return owner === self ? undefined : owner
      }),
    release: (id) =>
      Effect.sync(() => {
        asked.push(`release ${id}`)
        owners.delete(id)
      })
  }
  return service
}

/** A node:http server with the legacy transport and the directory; its origin. */
const serveWith = (directory: SessionDirectory.SessionDirectoryService, options: McpHttpServer.Options = {}) =>
  Effect.map(
    Layer.build(
      McpNodeHttpServer.layer({ legacySse: true, ...options }).pipe(
        Layer.provideMerge(tools().pipe(Layer.provideMerge(McpServer.layer(info)))),
        Layer.provide(Layer.succeed(SessionDirectory.SessionDirectory, directory))
      )
    ).pipe(Effect.orDie),
    (context) => new URL(Context.get(context, McpNodeHttpServer.Address).url).origin
  )

/** Opens a legacy stream; its reader (cancelled with the scope) and its message endpoint. */
const openStream = (origin: string) =>
  Effect.gen(function*() {
    const reader = yield* Effect.acquireRelease(
      Effect.promise(() =>
        fetch(`${origin}/sse`, { headers: { accept: "text/event-stream" } }).then((r) => r.body!.getReader())
      ),
      (reader) => Effect.promise(() => reader.cancel())
    )
    const read = (done: (text: string) => boolean) =>
      Effect.promise(async () => {
        const decoder = new TextDecoder()
        let text = ""
        while (!done(text)) {
          const chunk = await reader.read()
          if (chunk.done) break
          text += decoder.decode(chunk.value, { stream: true })
        }
        return text
      })
    const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(yield* read((t) => /data: \S+\n/.test(t)))![1]!
    return { reader, read, endpoint, id: new URL(endpoint, origin).searchParams.get("sessionId")! }
  })

const ping = { jsonrpc: "2.0", id: 7, method: "ping" }
const someId = "0123456789abcdef0123456789abcdef"

describe.skipIf(adapter !== "node")("legacy HTTP+SSE sessions relayed between servers", () => {
  it.scopedLive("a POST reaching the other server is relayed to the stream's; the stream's end releases the session", () =>
    Effect.gen(function*() {
      const owners = new Map<string, string>()
      const a = yield* serveWith(directoryOf(owners, []))
      const b = yield* serveWith(directoryOf(owners, []))
      const stream = yield* openStream(a)
      expect(owners.get(stream.id)).toBe(a)
      expect((yield* post(`${b}${stream.endpoint}`, initialize("2024-11-05"))).status).toBe(202)
      expect(yield* stream.read((t) => t.includes("protocolVersion"))).toContain("\"protocolVersion\":\"2024-11-05\"")
      expect((yield* post(`${b}${stream.endpoint}`, ping)).status).toBe(202)
      expect(yield* stream.read((t) => t.includes("\"id\":7"))).toContain("\"result\":{}")
      yield* Effect.promise(() => stream.reader.cancel())
      yield* Effect.sync(() => owners.has(stream.id)).pipe(
        Effect.repeat({ while: (held) => held, schedule: Schedule.spaced("10 millis") })
      )
      expect((yield* post(`${b}${stream.endpoint}`, ping)).status).toBe(404)
    }))

  it.scopedLive("an owner that does not answer within relayTimeout: 504, and the request reached it marked as relayed", () =>
    Effect.gen(function*() {
      const seen: Array<{ readonly url: string | undefined; readonly headers: IncomingHttpHeaders }> = []
      const silent = createServer((request) => void seen.push({ url: request.url, headers: request.headers }))
      const port = yield* listenOnLoopback(silent)
      const owners = new Map([[someId, `http://127.0.0.1:${port}`]])
      const b = yield* serveWith(directoryOf(owners, []), { relayTimeout: "100 millis" })
      const answer = yield* post(`${b}/messages?sessionId=${someId}`, ping)
      expect(answer.status).toBe(504)
      expect(yield* Effect.promise(() => answer.text())).toMatch(/did not answer in time/)
      expect(seen).toMatchObject([{ url: `/messages?sessionId=${someId}`, headers: { "x-effect-mcp-relayed": "1" } }])
      // Slow is not gone: the session stays where it is.
      expect(owners.has(someId)).toBe(true)
    }))

  it.scopedLive("an owner that is gone: 404, and the directory forgets the session", () =>
    Effect.gen(function*() {
      const closed = yield* Effect.scoped(listenOnLoopback(createServer()))
      const owners = new Map([[someId, `http://127.0.0.1:${closed}`]])
      const b = yield* serveWith(directoryOf(owners, []))
      expect((yield* post(`${b}/messages?sessionId=${someId}`, ping)).status).toBe(404)
      expect(owners.has(someId)).toBe(false)
    }))

  it.scopedLive("a session id that is not one the endpoint makes is 404 and never reaches the directory", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const b = yield* serveWith(directoryOf(new Map(), asked))
      for (const id of ["x".repeat(6000), encodeURIComponent("a:b\r\n*"), "", someId.toUpperCase()]) {
        expect((yield* post(`${b}/messages?sessionId=${id}`, ping)).status).toBe(404)
      }
      expect((yield* post(`${b}/messages`, ping)).status).toBe(404)
      expect(asked).toEqual([])
    }))

  it.scopedLive("the directory away: a new stream and a POST for a session held elsewhere get 503", () =>
    Effect.gen(function*() {
      const b = yield* serveWith(directoryOf(new Map(), [], true))
      const stream = yield* Effect.promise(() => fetch(`${b}/sse`, { headers: { accept: "text/event-stream" } }))
      expect(stream.status).toBe(503)
      expect(stream.headers.get("retry-after")).toBe("1")
      yield* Effect.promise(() => stream.text())
      expect((yield* post(`${b}/messages?sessionId=${someId}`, ping)).status).toBe(503)
    }))
})
