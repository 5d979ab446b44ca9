/**
 * The endpoint in a Fastify 5 app over real loopback HTTP, next to a route of the app's own: the route hijacks the
 * reply and hands the node request, the node response and Fastify's parsed body to `McpNodeHttpServer.handler`.
 */
import { McpServer } from "@effect-mcp/core"
import { McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import Fastify from "fastify"
import { adapter, info, messages, postHeaders, tools } from "./helpers.js"
import { ours, theirs } from "./peers.js"

/**
 * A Fastify app with `/health` and the MCP endpoint, on 127.0.0.1 until the scope closes. `parse: "fastify"` lets
 * Fastify parse the body and hands it over; `"endpoint"` mounts the route in a plugin whose content-type parser
 * leaves the body unread, so that the endpoint reads it under its own limit and answers its own parse errors.
 */
const serveApp = (parse: "fastify" | "endpoint" = "fastify") =>
  Effect.gen(function*() {
    const registry = yield* Layer.build(tools().pipe(Layer.provideMerge(McpServer.layer(info))))
    const handle = yield* McpNodeHttpServer.handler().pipe(Effect.provide(registry))
    const app = Fastify({ bodyLimit: 4 * 1024 * 1024, forceCloseConnections: true })
    app.get("/health", () => "ok")
    if (parse === "fastify") {
      app.all("/mcp", (request, reply) => {
        reply.hijack()
        handle(request.raw, reply.raw, request.body)
      })
    } else {
      app.register(async (mcp) => {
        mcp.removeAllContentTypeParsers()
        mcp.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined))
        mcp.all("/mcp", (request, reply) => {
          reply.hijack()
          handle(request.raw, reply.raw, request.body)
        })
      })
    }
    const address = yield* Effect.acquireRelease(
      Effect.promise(() => app.listen({ host: "127.0.0.1", port: 0 })),
      () => Effect.promise(() => app.close())
    )
    return address
  })

describe.skipIf(adapter !== "node")("Fastify 5", () => {
  it.scopedLive("both clients list, call with progress and send large bodies, beside a route of the app", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp()
      yield* ours(`${origin}/mcp`)
      yield* ours(`${origin}/mcp`, "2025-11-25")
      yield* theirs(`${origin}/mcp`)
      const health = yield* Effect.promise(() => fetch(`${origin}/health`).then((r) => r.text()))
      expect(health).toBe("ok")
    }))

  it.scopedLive("in a plugin whose parser leaves the body unread, the endpoint reads it and answers its errors", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp("endpoint")
      yield* ours(`${origin}/mcp`)
      yield* theirs(`${origin}/mcp`)
      const broken = yield* Effect.promise(() =>
        fetch(`${origin}/mcp`, { method: "POST", headers: postHeaders(), body: "{not json" })
      )
      expect(broken.status).toBe(400)
      const [answer] = yield* messages(broken)
      expect(answer.error.code).toBe(-32700)
      const health = yield* Effect.promise(() => fetch(`${origin}/health`).then((r) => r.text()))
      expect(health).toBe("ok")
    }))

  it.scopedLive("a session's GET stream and DELETE go through the same route", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp()
      const init = yield* Effect.promise(() =>
        fetch(`${origin}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
          })
        })
      )
      const session = init.headers.get("mcp-session-id")
      expect(session).toMatch(/^[0-9a-f]{32}$/)
      const headers = { "mcp-session-id": session!, "mcp-protocol-version": "2025-11-25" }
      const stream = yield* Effect.promise(() =>
        fetch(`${origin}/mcp`, { headers: { accept: "text/event-stream", ...headers } })
      )
      expect(stream.status).toBe(200)
      expect(stream.headers.get("content-type")).toBe("text/event-stream")
      yield* Effect.promise(() => stream.body!.cancel())
      const ended = yield* Effect.promise(() => fetch(`${origin}/mcp`, { method: "DELETE", headers }))
      expect(ended.status).toBe(200)
      const gone = yield* Effect.promise(() =>
        fetch(`${origin}/mcp`, { headers: { accept: "text/event-stream", ...headers } })
      )
      expect(gone.status).toBe(404)
    }))
})
