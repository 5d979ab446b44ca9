/**
 * The endpoint mounted on @effect/platform's two routers beside a route of the app's own, served by the platform's
 * node server over real loopback HTTP: `HttpRouter.concat(app, McpHttpServer.router())`, and
 * `McpHttpServer.layerRouter()` merged with other `HttpLayerRouter` routes under `HttpLayerRouter.serve`. Run in the
 * http-platform project, where our client is McpHttpClient over the platform's HttpClient.
 */
import { McpServer } from "@effect-mcp/core"
import { McpHttpServer } from "@effect-mcp/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { adapter, info, tools } from "./helpers.js"
import { ours, theirs } from "./peers.js"

const registry = tools().pipe(Layer.provideMerge(McpServer.layer(info)))
const nodeServer = NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })

/** Builds a layer that serves on the platform's node server, and gives the server's origin. */
const originOf = (served: Layer.Layer<never, never, HttpServer.HttpServer>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Layer.provideMerge(served, nodeServer)).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`
  })

/** Drives the endpoint at `${origin}/mcp` with both clients, and checks the app's own route still answers. */
const exercise = (origin: string) =>
  Effect.gen(function*() {
    yield* ours(`${origin}/mcp`)
    yield* ours(`${origin}/mcp`, "2025-11-25")
    yield* theirs(`${origin}/mcp`)
    const health = yield* Effect.promise(() => fetch(`${origin}/health`).then((r) => r.text()))
    expect(health).toBe("ok")
    const unknown = yield* Effect.promise(() => fetch(`${origin}/elsewhere`))
    expect(unknown.status).toBe(404)
  })

describe.skipIf(adapter !== "platform")("@effect/platform routers", () => {
  it.scopedLive("HttpRouter: the MCP router concatenated with the app's own", () =>
    Effect.gen(function*() {
      const served = Layer.unwrapScoped(Effect.gen(function*() {
        const mcp = yield* McpHttpServer.router()
        const app = HttpRouter.empty.pipe(
          HttpRouter.get("/health", HttpServerResponse.text("ok")),
          HttpRouter.concat(mcp)
        )
        return HttpServer.serve(app)
      }))
      yield* exercise(yield* originOf(served.pipe(Layer.provide(registry))))
    }))

  it.scopedLive("HttpLayerRouter: McpHttpServer.layerRouter merged with the app's own routes", () =>
    Effect.gen(function*() {
      const routes = Layer.mergeAll(
        McpHttpServer.layerRouter(),
        HttpLayerRouter.add("GET", "/health", HttpServerResponse.text("ok"))
      )
      const served = HttpLayerRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(registry)
      )
      yield* exercise(yield* originOf(served))
    }))
})
