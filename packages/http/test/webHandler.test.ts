/**
 * McpWebHandler itself: `toFetch`'s `{ fetch, dispose }` served over real loopback HTTP (a node:http → fetch bridge)
 * to our client and the official SDK v2 client, in a session and stateless; and what only a fetch handler has,
 * driven with `Request`s straight: `request.signal`, a cancelled response stream, a streamed body past the limit,
 * and `dispose`. (The http-web project runs the rest of the HTTP suite on it too.)
 */
import { McpServer } from "@effect-mcp/core"
import { McpWebHandler } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { fetchListener } from "./fetchBridge.js"
import { adapter, connect, info, listenOnLoopback, meta2026, postHeaders, readEvents, tools } from "./helpers.js"

const registry = (hooks: Parameters<typeof tools>[0] = {}) =>
  tools(hooks).pipe(Layer.provideMerge(McpServer.layer(info)))

/** A handler of its own, disposed when the scope closes. */
const handlerOf = (hooks: Parameters<typeof tools>[0] = {}, options: McpWebHandler.Options = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => McpWebHandler.toFetch(registry(hooks), options)),
    (handler) => Effect.promise(() => handler.dispose())
  )

/** Serves a handler on 127.0.0.1 at a free port until the scope closes; succeeds with the endpoint's URL. */
const served = (handler: McpWebHandler.WebHandler) =>
  Effect.map(listenOnLoopback(createServer(fetchListener(handler.fetch))), (port) => `http://127.0.0.1:${port}/mcp`)

const base = "http://127.0.0.1/mcp"
const statelessHeaders = (name: string) =>
  postHeaders({ host: "127.0.0.1", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name })
const statelessCall = (id: number, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: { ...meta2026, ...meta } }
  })

// These test McpWebHandler itself: the other projects would only run them again.
describe.skipIf(adapter !== "node")("McpWebHandler over loopback HTTP", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it.scopedLive(`our client, ${revision}: tools, a call, a call with progress`, () =>
      Effect.gen(function*() {
        const url = yield* served(yield* handlerOf())
        const client = yield* connect(url, { revision })
        expect(client.revision).toBe(revision)
        expect((yield* client.listTools()).map((t) => t.name)).toContain("echo")
        const echoed = yield* client.callTool("echo", { text: "over fetch" })
        expect(echoed.content[0]).toMatchObject({ type: "text", text: "over fetch" })
        const progress: Array<number> = []
        const counted = yield* client.callTool("count", { to: 3 }, { onProgress: (p) => progress.push(p.progress) })
        expect(counted.content[0]).toMatchObject({ text: "counted to 3" })
        expect(progress).toEqual([1, 2, 3])
      }))
  }

  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it.scopedLive(`the official SDK v2 client, ${revision}: tools, a call, a call with progress`, () =>
      Effect.gen(function*() {
        const url = yield* served(yield* handlerOf())
        const client = new V2Client(
          { name: "sdk2-web", version: "2.4.0" },
          revision === "2026-07-28"
            ? { versionNegotiation: { mode: "auto" } }
            : { supportedProtocolVersions: [revision] }
        )
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new V2Http(new URL(url)))),
          () => Effect.promise(() => client.close())
        )
        expect(client.getNegotiatedProtocolVersion()).toBe(revision)
        const listed = yield* Effect.promise(() => client.listTools())
        expect(listed.tools.map((t) => t.name)).toContain("echo")
        const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "v2" } }))
        expect(echoed.content).toEqual([{ type: "text", text: "v2" }])
        const progress: Array<number> = []
        const counted = yield* Effect.promise(() =>
          client.callTool({ name: "count", arguments: { to: 2 } }, { onprogress: (p) => progress.push(p.progress) })
        )
        expect(counted.content).toEqual([{ type: "text", text: "counted to 2" }])
        expect(progress).toEqual([1, 2])
      }))
  }
})

describe.skipIf(adapter !== "node")("McpWebHandler with Requests straight", () => {
  it.scopedLive("a request whose signal aborts interrupts its handler", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const handler = yield* handlerOf({
        onSlowStarted: Deferred.succeed(started, undefined),
        onSlowInterrupted: Deferred.succeed(interrupted, undefined)
      })
      const abort = new AbortController()
      const answer = handler.fetch(
        new Request(base, {
          method: "POST",
          headers: statelessHeaders("slow"),
          body: statelessCall(1, "slow", {}),
          signal: abort.signal
        })
      )
      yield* Deferred.await(started)
      abort.abort()
      yield* Deferred.await(interrupted)
      // The promise settles (nobody reads it now) instead of hanging.
      yield* Effect.promise(() => answer)
    }))

  it.scopedLive("cancelling an SSE response's body interrupts its handler", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const handler = yield* handlerOf({ onSlowInterrupted: Deferred.succeed(interrupted, undefined) }, {
        responseMode: "sse"
      })
      const response = yield* Effect.promise(() =>
        handler.fetch(
          new Request(base, { method: "POST", headers: statelessHeaders("slow"), body: statelessCall(1, "slow", {}) })
        )
      )
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/event-stream")
      yield* Effect.promise(() => response.body!.cancel())
      yield* Deferred.await(interrupted)
    }))

  it.scopedLive("an SSE body is written as it is read: progress, then the result, then the end", () =>
    Effect.gen(function*() {
      const handler = yield* handlerOf()
      const response = yield* Effect.promise(() =>
        handler.fetch(
          new Request(base, {
            method: "POST",
            headers: statelessHeaders("count"),
            body: statelessCall(1, "count", { to: 3 }, { progressToken: "p" })
          })
        )
      )
      const events = yield* readEvents(response, () => false)
      const messages = events.filter((e) => e.data !== "").map((e) => JSON.parse(e.data))
      expect(messages.map((m) => m.method ?? "result")).toEqual([
        "notifications/progress",
        "notifications/progress",
        "notifications/progress",
        "result"
      ])
      expect(messages[3].result.content[0].text).toBe("counted to 3")
    }))

  it.scopedLive("a streamed body past maxBodySize (no Content-Length) gets 413", () =>
    Effect.gen(function*() {
      const handler = yield* handlerOf({}, { maxBodySize: 1024 })
      const chunk = new TextEncoder().encode("x".repeat(512))
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          if (sent++ < 8) controller.enqueue(chunk)
          else controller.close()
        }
      })
      const response = yield* Effect.promise(() =>
        handler.fetch(
          new Request(base, {
            method: "POST",
            headers: statelessHeaders("echo"),
            body,
            duplex: "half"
          } as RequestInit)
        )
      )
      expect(response.status).toBe(413)
    }))

  it.scopedLive("a request without a Host header is refused (403): the URL never stands in for it", () =>
    Effect.gen(function*() {
      const handler = yield* handlerOf()
      const headers = statelessHeaders("echo")
      delete headers["host"]
      const response = yield* Effect.promise(() =>
        handler.fetch(new Request(base, { method: "POST", headers, body: statelessCall(1, "echo", { text: "x" }) }))
      )
      expect(response.status).toBe(403)
    }))

  it.scopedLive("dispose interrupts requests in flight and ends open SSE streams", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const handler = McpWebHandler.toFetch(
        registry({
          onSlowStarted: Deferred.succeed(started, undefined),
          onSlowInterrupted: Deferred.succeed(interrupted, undefined)
        }),
        { responseMode: "sse" }
      )
      const response = yield* Effect.promise(() =>
        handler.fetch(
          new Request(base, { method: "POST", headers: statelessHeaders("slow"), body: statelessCall(1, "slow", {}) })
        )
      )
      yield* Deferred.await(started)
      const read = response.text().then(() => "ended", () => "cut")
      yield* Effect.promise(() => handler.dispose())
      yield* Deferred.await(interrupted)
      expect(yield* Effect.promise(() => read)).toBe("cut")
    }))

  it.scopedLive("the Effect-native layer serves the McpServer in context", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(McpWebHandler.layer().pipe(Layer.provide(registry())))
      const fetch = Context.get(context, McpWebHandler.McpWebHandler)
      const response = yield* Effect.promise(() =>
        fetch(
          new Request(base, {
            method: "POST",
            headers: statelessHeaders("echo"),
            body: statelessCall(1, "echo", { text: "in Effect" })
          })
        )
      )
      expect(response.status).toBe(200)
      const body = yield* Effect.promise(() =>
        response.json() as Promise<{ result: { content: Array<{ text: string }> } }>
      )
      expect(body.result.content[0]?.text).toBe("in Effect")
    }))
})
