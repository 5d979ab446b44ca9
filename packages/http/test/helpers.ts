/**
 * Test helpers: a real HTTP server on 127.0.0.1 (port 0) serving an MCP server, stopped when the test's scope
 * closes; and raw fetch helpers for wire checks. The server is McpNodeHttpServer and the client McpNodeHttpClient, or
 * McpHttpServer and McpHttpClient on @effect/platform's node server and client when `EFFECT_MCP_HTTP_ADAPTER=platform`
 * (the `http-platform` test project).
 */
import { type Errors, McpClient, McpServer, RequestContext } from "@effect-mcp/core"
import { McpHttpClient, McpHttpServer, McpNodeHttpClient, McpNodeHttpServer, McpWebHandler } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { createParser, type EventSourceMessage } from "eventsource-parser"
import { createServer, request } from "node:http"
import type * as Http from "node:http"
import { fetchListener, remoteAddresses } from "./fetchBridge.js"

/** The server every test serves unless told otherwise: echo, a progress-reporting count, a slow tool, whoami. */
export const info = { name: "http-test", version: "1.0.0" }

/** Tools: `echo`, `count` (progress then result), `flood` (progress as fast as it can), `slow` (never returns until cancelled), `whoami` (auth). */
export const tools = (
  hooks: {
    readonly onSlowInterrupted?: Effect.Effect<void>
    readonly onSlowStarted?: Effect.Effect<void>
    /** Called after each progress notification of `flood` went out. */
    readonly onFloodProgress?: (sent: number) => void
  } = {}
) =>
  Layer.mergeAll(
    McpServer.tool({
      name: "echo",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(text)
    }),
    McpServer.tool({
      name: "count",
      input: Schema.Struct({ to: Schema.Number, delayMs: Schema.optional(Schema.Number) }),
      handler: ({ delayMs, to }) =>
        Effect.gen(function*() {
          for (let i = 1; i <= to; i++) {
            yield* RequestContext.progress(i, to, `step ${i}`)
            if (delayMs !== undefined) yield* Effect.sleep(delayMs)
          }
          return `counted to ${to}`
        })
    }),
    McpServer.tool({
      name: "flood",
      input: Schema.Struct({ count: Schema.Number, size: Schema.Number }),
      handler: ({ count, size }) =>
        Effect.gen(function*() {
          const text = "x".repeat(size)
          for (let i = 1; i <= count; i++) {
            yield* RequestContext.progress(i, count, text)
            hooks.onFloodProgress?.(i)
          }
          return `flooded ${count}`
        })
    }),
    McpServer.tool({
      name: "slow",
      input: Schema.Struct({}),
      handler: () =>
        (hooks.onSlowStarted ?? Effect.void).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => hooks.onSlowInterrupted ?? Effect.void),
          Effect.as("never")
        )
    }),
    McpServer.tool({
      name: "greet",
      input: Schema.Struct({}),
      handler: () =>
        Effect.gen(function*() {
          const answer = yield* RequestContext.elicit({
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
          })
          return `hello ${String(answer.content?.name ?? "nobody")}`
        })
    }),
    McpServer.tool({
      name: "whoami",
      input: Schema.Struct({}),
      handler: () => Effect.map(RequestContext.RequestContext, (ctx) => JSON.stringify(ctx.auth ?? null))
    })
  )

/** A running endpoint. */
export interface Running {
  /** The endpoint's absolute URL. */
  readonly url: string
  /** The server's origin (`http://127.0.0.1:<port>`). */
  readonly origin: string
  /** The registry, to change it during a test. */
  readonly server: McpServer.McpServerService
}

/** Which server adapter the tests run against (`web`: McpWebHandler behind a node:http → fetch bridge). */
export const adapter: "node" | "platform" | "web" = process.env["EFFECT_MCP_HTTP_ADAPTER"] === "platform"
  ? "platform"
  : process.env["EFFECT_MCP_HTTP_ADAPTER"] === "web"
  ? "web"
  : "node"

/** Serves `tools` (or the given Layer) on 127.0.0.1 at a free port until the scope closes. */
export const serve = (
  options: McpHttpServer.Options = {},
  registrations: Layer.Layer<never, never, McpServer.McpServer> = tools()
): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.gen(function*() {
    const mcp = registrations.pipe(Layer.provideMerge(McpServer.layer(info)))
    if (adapter === "node") {
      const context = yield* Layer.build(McpNodeHttpServer.layer(options).pipe(Layer.provideMerge(mcp))).pipe(
        Effect.orDie
      )
      return running(Context.get(context, McpNodeHttpServer.Address).port, options, context)
    }
    if (adapter === "web") {
      const web = { remoteAddress: (request: Request) => remoteAddresses.get(request), ...options }
      const context = yield* Layer.build(McpWebHandler.layer(web).pipe(Layer.provideMerge(mcp)))
      const port = yield* listenOnLoopback(
        createServer(fetchListener(Context.get(context, McpWebHandler.McpWebHandler)))
      )
      return running(port, options, context)
    }
    const platform = McpHttpServer.layer(options).pipe(
      Layer.provideMerge(mcp),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
    const context = yield* Layer.build(platform).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return running(address._tag === "TcpAddress" ? address.port : 0, options, context)
  })

const running = (port: number, options: McpHttpServer.Options, context: Context.Context<McpServer.McpServer>) => {
  const origin = `http://127.0.0.1:${port}`
  return { url: `${origin}${options.path ?? "/mcp"}`, origin, server: Context.get(context, McpServer.McpServer) }
}

/** The headers of a JSON-RPC POST. */
export const postHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra
})

/** POSTs a JSON body with fetch. */
export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(url, { method: "POST", headers: postHeaders(headers), body: JSON.stringify(body) }))

/** Reads a response as JSON-RPC messages (JSON or SSE). */
export const messages = (response: Response): Effect.Effect<Array<any>> =>
  Effect.promise(async () => {
    const type = response.headers.get("content-type") ?? ""
    const text = await response.text()
    if (type.includes("application/json")) return [JSON.parse(text)]
    const out: Array<any> = []
    const parser = createParser({ onEvent: (e: EventSourceMessage) => e.data !== "" && out.push(JSON.parse(e.data)) })
    parser.feed(text)
    return out
  })

/** Raw SSE events of a streaming response, read until `until` says stop (then the body is cancelled). */
export const readEvents = (
  response: Response,
  until: (events: ReadonlyArray<EventSourceMessage>) => boolean
): Effect.Effect<Array<EventSourceMessage>> =>
  Effect.promise(async () => {
    const events: Array<EventSourceMessage> = []
    const parser = createParser({ onEvent: (e) => void events.push(e) })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    while (!until(events)) {
      const { done, value } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
    }
    await reader.cancel().catch(() => undefined)
    return events
  })

/** An initialize request. */
export const initialize = (protocolVersion: string, id: number | string = 0) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})

/** Opens a session with raw requests: initialize + initialized; returns the session id. */
export const openSession = (url: string, protocolVersion = "2025-11-25") =>
  Effect.gen(function*() {
    const res = yield* post(url, initialize(protocolVersion))
    const sessionId = res.headers.get("mcp-session-id")
    yield* messages(res)
    if (sessionId === null) return yield* Effect.dieMessage(`no session id (status ${res.status})`)
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion }
    const ack = yield* post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    if (ack.status !== 202) return yield* Effect.dieMessage(`initialized got ${ack.status}`)
    return { sessionId, headers }
  })

/** The `_meta` of a 2026-07-28 request. */
export const meta2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** A McpClient over McpNodeHttpClient (McpHttpClient on the platform's node client under `http-platform`), connected to `url` until the scope closes. */
export const connect = (
  url: string,
  client: Partial<McpClient.Options> = {},
  http: Partial<McpHttpClient.Options> = {}
): Effect.Effect<McpClient.McpClientService, Errors.HandshakeFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* Layer.build(
      adapter !== "platform"
        ? McpNodeHttpClient.layer({ url, ...http })
        : McpHttpClient.layer({ url, ...http }).pipe(Layer.provide(NodeHttpClient.layer))
    )
    return yield* McpClient.make({ name: "http-test-client", version: "0.0.0", ...client }).pipe(
      Effect.provide(transport)
    )
  })

/** A raw HTTP exchange with node:http (for headers fetch will not send, such as Host). */
export const rawRequest = (
  url: string,
  init: { readonly method: string; readonly headers?: Record<string, string>; readonly body?: string }
): Effect.Effect<{ readonly status: number; readonly headers: Record<string, unknown>; readonly body: string }> =>
  Effect.async((resume) => {
    const target = new URL(url)
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: init.method,
      headers: init.headers
    }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (body += c))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
    })
    req.on("error", (e) => resume(Effect.die(e)))
    req.end(init.body)
  })

/** Listens on 127.0.0.1 at a free port until the scope closes (then closes every connection); succeeds with the port. */
export const listenOnLoopback = (server: Http.Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
