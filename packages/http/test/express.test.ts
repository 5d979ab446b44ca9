/**
 * The endpoint in an Express 5 app (`app.all("/mcp", listener)`) over real loopback HTTP, next to a route of the
 * app's own: before and after `express.json()` (whose parsed `request.body` the listener takes, since the stream is
 * consumed), after `express.text()`, and after a middleware that swallowed the body (a clear 400, not a hang).
 */
import { McpServer } from "@effect-mcp/core"
import { McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import express from "express"
import { createServer } from "node:http"
import { adapter, info, listenOnLoopback, messages, post, postHeaders, rawRequest, tools } from "./helpers.js"
import { bigText, ours, theirs } from "./peers.js"

const echo = (text: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "echo",
    arguments: { text },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {}
    }
  }
})
const echoHeaders = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" }

/** Serves an Express app made by `build` (given the MCP listener) on 127.0.0.1 until the scope closes. */
const serveApp = (build: (app: express.Express, mcp: McpNodeHttpServer.Listener) => void, maxBodySize?: number) =>
  Effect.gen(function*() {
    const registry = yield* Layer.build(tools().pipe(Layer.provideMerge(McpServer.layer(info))))
    const mcp = yield* McpNodeHttpServer.listener(maxBodySize === undefined ? {} : { maxBodySize }).pipe(
      Effect.provide(registry)
    )
    const app = express()
    app.get("/health", (_request, response) => void response.send("ok"))
    build(app, mcp)
    const port = yield* listenOnLoopback(createServer(app))
    return `http://127.0.0.1:${port}`
  })

describe.skipIf(adapter !== "node")("Express 5", () => {
  it.scopedLive("after express.json(): both clients list, call with progress and send large bodies", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp((app, mcp) => {
        app.use(express.json({ limit: "4mb" }))
        app.all("/mcp", mcp)
      })
      yield* ours(`${origin}/mcp`)
      yield* ours(`${origin}/mcp`, "2025-11-25")
      yield* theirs(`${origin}/mcp`)
      const health = yield* Effect.promise(() => fetch(`${origin}/health`).then((r) => r.text()))
      expect(health).toBe("ok")
    }))

  it.scopedLive("before any body parser, the endpoint reads the stream itself", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp((app, mcp) => {
        app.all("/mcp", mcp)
        app.use(express.json())
      })
      yield* ours(`${origin}/mcp`)
      yield* theirs(`${origin}/mcp`)
    }))

  for (
    const [name, parser] of [
      ["express.text()", express.text({ type: "application/json", limit: "4mb" })],
      ["express.raw()", express.raw({ type: "application/json", limit: "4mb" })]
    ] as const
  ) {
    it.scopedLive(`after ${name} for JSON, what it kept is the body`, () =>
      Effect.gen(function*() {
        const origin = yield* serveApp((app, mcp) => {
          app.use(parser)
          app.all("/mcp", mcp)
        })
        const response = yield* post(`${origin}/mcp`, echo(bigText), echoHeaders)
        expect(response.status).toBe(200)
        const [answer] = yield* messages(response)
        expect(answer.result.content[0].text).toBe(bigText)
      }))
  }

  it.scopedLive("a parsed body past maxBodySize is refused with 413, also when no Content-Length announced it", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp((app, mcp) => {
        app.use(express.json())
        app.all("/mcp", mcp)
      }, 1_000)
      const response = yield* post(`${origin}/mcp`, echo("y".repeat(2_000)), echoHeaders)
      expect(response.status).toBe(413)
      // Chunked: only the parsed body's own size can refuse it.
      const chunked = yield* rawRequest(`${origin}/mcp`, {
        method: "POST",
        headers: postHeaders({ ...echoHeaders, "transfer-encoding": "chunked" }),
        body: JSON.stringify(echo("y".repeat(2_000)))
      })
      expect(chunked.status).toBe(413)
      const small = yield* post(`${origin}/mcp`, echo("y"), echoHeaders)
      expect(small.status).toBe(200)
    }))

  it.scopedLive("a body swallowed by a middleware that kept nothing is a 400 parse error, not a hung request", () =>
    Effect.gen(function*() {
      const origin = yield* serveApp((app, mcp) => {
        app.use((request, _response, next) => {
          request.resume()
          request.on("end", () => next())
        })
        app.all("/mcp", mcp)
      })
      const response = yield* post(`${origin}/mcp`, echo("lost"), echoHeaders)
      expect(response.status).toBe(400)
      const [answer] = yield* messages(response)
      expect(answer.error.code).toBe(-32700)
    }))
})
