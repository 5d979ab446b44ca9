/**
 * Hono: the web handler mounted on a Hono app by the one line docs/runtimes.md gives,
 * `app.all("/mcp", (c) => handler.fetch(c.req.raw))`, beside the app's own routes, served over loopback HTTP (a
 * node:http → fetch bridge standing in for any runtime Hono runs on) to our client and the official SDK v2 client.
 */
import { McpServer } from "@effect-mcp/core"
import { McpWebHandler } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Hono } from "hono"
import { createServer } from "node:http"
import { fetchListener } from "./fetchBridge.js"
import { adapter, connect, info, listenOnLoopback, tools } from "./helpers.js"

/** A Hono app with a route of its own and the MCP endpoint at `path`, served until the scope closes. */
const app = (path: string) =>
  Effect.gen(function*() {
    const handler = yield* Effect.acquireRelease(
      Effect.sync(() => McpWebHandler.toFetch(tools().pipe(Layer.provideMerge(McpServer.layer(info))), { path })),
      (handler) => Effect.promise(() => handler.dispose())
    )
    const hono = new Hono()
    hono.get("/health", (c) => c.text("ok"))
    hono.all(path, (c) => handler.fetch(c.req.raw))
    const port = yield* listenOnLoopback(createServer(fetchListener(hono.fetch)))
    return { origin: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}${path}` }
  })

// Hono itself is under test here: the other projects would only run it again.
describe.skipIf(adapter !== "node")("Hono", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it.scopedLive(`our client, ${revision}, through app.all("/mcp", …), beside the app's own route`, () =>
      Effect.gen(function*() {
        const { origin, url } = yield* app("/mcp")
        const client = yield* connect(url, { revision })
        const progress: Array<number> = []
        const counted = yield* client.callTool("count", { to: 2 }, { onProgress: (p) => progress.push(p.progress) })
        expect(counted.content[0]).toMatchObject({ text: "counted to 2" })
        expect(progress).toEqual([1, 2])
        const health = yield* Effect.promise(() => fetch(`${origin}/health`).then((r) => r.text()))
        expect(health).toBe("ok")
      }))
  }

  it.scopedLive("the official SDK v2 client, at a path of the app's choosing", () =>
    Effect.gen(function*() {
      const { url } = yield* app("/api/mcp")
      const client = new V2Client({ name: "sdk2-hono", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new V2Http(new URL(url)))),
        () => Effect.promise(() => client.close())
      )
      const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "hono" } }))
      expect(echoed.content).toEqual([{ type: "text", text: "hono" }])
    }))
})
