import { McpClient, Transport } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import { adapter, listenOnLoopback } from "./helpers.js"

/**
 * How the misbehaving server answers a request (other than `initialize`, notifications, GET and DELETE):
 * - `ok`: a result
 * - `401`, `401-jsonrpc`, `403`: refused, with WWW-Authenticate (and an OAuth or a JSON-RPC error body)
 * - `404`: "Session not found" (JSON-RPC -32001, as the official SDK servers answer), and initialize is refused too
 * - `500`, `500-jsonrpc`: an internal error, as plain text or as a JSON-RPC -32603
 * - `timeout-error`: a real JSON-RPC -32001 answer (HTTP 200)
 * - `cut-json`, `cut-sse`: 200, then the connection closes in the middle of the body
 * - `hang-up`: the connection closes before any answer
 * - `silent`: no answer at all
 */
type Mode =
  | "ok"
  | "401"
  | "401-jsonrpc"
  | "403"
  | "404"
  | "500"
  | "500-jsonrpc"
  | "timeout-error"
  | "cut-json"
  | "cut-sse"
  | "hang-up"
  | "silent"

const bearer401 =
  `Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`
const bearer403 = `Bearer error="insufficient_scope", scope="admin"`

/** A small MCP server on 127.0.0.1 (session or stateless) whose answers the test switches; stopped with the scope. */
const misbehaving = (era: "session" | "stateless") =>
  Effect.gen(function*() {
    const state: { mode: Mode; initialize: Mode; posts: number } = { mode: "ok", initialize: "ok", posts: 0 }
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => void chunks.push(chunk))
      req.on("end", () => {
        if (req.method === "GET") return void res.writeHead(405, { allow: "POST, DELETE" }).end()
        if (req.method === "DELETE") return void res.writeHead(200).end()
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          id?: string | number
          method: string
          params?: { protocolVersion?: string }
        }
        const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
          const text = JSON.stringify(value)
          res.writeHead(status, {
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(text)),
            ...headers
          })
          res.end(text)
        }
        state.posts++
        if (body.id === undefined) return void res.writeHead(202).end()
        const id = body.id
        const mode = body.method === "initialize" ? state.initialize : state.mode
        switch (mode) {
          case "ok":
            if (body.method === "server/discover") {
              if (era === "session") return json(404, { jsonrpc: "2.0", id, error: { code: -32601, message: "no" } })
              return json(200, {
                jsonrpc: "2.0",
                id,
                result: {
                  resultType: "complete",
                  supportedVersions: ["2026-07-28"],
                  capabilities: { tools: {} },
                  ttlMs: 0,
                  cacheScope: "private",
                  _meta: { "io.modelcontextprotocol/serverInfo": { name: "misbehaving", version: "0" } }
                }
              })
            }
            if (body.method === "initialize") {
              return json(200, {
                jsonrpc: "2.0",
                id,
                result: {
                  protocolVersion: body.params?.protocolVersion,
                  capabilities: { tools: {} },
                  serverInfo: { name: "misbehaving", version: "0" }
                }
              }, { "mcp-session-id": "s1" })
            }
            return json(200, {
              jsonrpc: "2.0",
              id,
              result: era === "stateless"
                ? { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" }
                : { tools: [] }
            })
          case "401":
            return json(401, { error: "invalid_token", error_description: "the token expired" }, {
              "www-authenticate": bearer401
            })
          case "401-jsonrpc":
            return json(401, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized" } }, {
              "www-authenticate": bearer401
            })
          case "403":
            return json(403, { error: "insufficient_scope" }, { "www-authenticate": bearer403 })
          case "404":
            return json(404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
          case "500":
            return void res.writeHead(500, { "content-type": "text/plain" }).end("boom")
          case "500-jsonrpc":
            return json(500, { jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } })
          case "timeout-error":
            return json(200, { jsonrpc: "2.0", id, error: { code: -32001, message: "Request timed out" } })
          case "cut-json":
            res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
            return void res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"res`, () => res.destroy())
          case "cut-sse":
            res.writeHead(200, { "content-type": "text/event-stream" })
            return void res.write(`data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"res`, () => res.destroy())
          case "hang-up":
            return void req.socket.destroy()
          case "silent":
            return
        }
      })
    })
    const port = yield* listenOnLoopback(server)
    const stop = Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    })
    return { url: `http://127.0.0.1:${port}/mcp`, state, stop }
  })

const transports = [
  {
    name: "McpHttpClient.layer",
    layer: (options: McpHttpClient.Options) => McpHttpClient.layer(options).pipe(Layer.provide(NodeHttpClient.layer))
  },
  { name: "McpNodeHttpClient.layer", layer: (options: McpHttpClient.Options) => McpNodeHttpClient.layer(options) }
]

/** The fields of a failure the tests look at (every failure of a call is a tagged error). */
interface Seen {
  readonly _tag: string
  readonly status?: number
  readonly wwwAuthenticate?: string
  readonly sessionId?: string
  readonly cause?: { readonly _tag?: string }
}

const seen = (e: unknown): Seen => e as Seen

// Both transports run here; the http-platform project would only run them again.
describe.skipIf(adapter !== "node").each(transports)("$name: every failure reaches the caller as what it is", ({
  layer
}) => {
  const connect = (url: string, era: "session" | "stateless", client: Partial<McpClient.Options> = {}) =>
    Effect.gen(function*() {
      const transport = yield* Layer.build(layer({ url, standaloneStream: false }))
      const connected = yield* McpClient.make({
        name: "t",
        version: "0",
        ...(era === "session" ? { revision: "2025-11-25" as const } : {}),
        ...client
      }).pipe(Effect.provide(transport))
      expect(connected.stateless).toBe(era === "stateless")
      return connected
    })

  /** One request (`ping` does not exist under 2026-07-28). */
  const call = (client: McpClient.McpClientService, options: McpClient.CallOptions = {}) =>
    client.request("tools/list", {}, options)

  /** Connects, switches the server to `mode`, and returns how one call fails; the next call (mode ok) succeeds. */
  const failureOf = (era: "session" | "stateless", mode: Mode) =>
    Effect.gen(function*() {
      const server = yield* misbehaving(era)
      const client = yield* connect(server.url, era)
      server.state.mode = mode
      const failure = yield* Effect.flip(call(client))
      server.state.mode = "ok"
      yield* call(client)
      return seen(failure)
    })

  for (const era of ["session", "stateless"] as const) {
    it.scopedLive(`${era}: 401 is Unauthorized, with the status and the WWW-Authenticate header`, () =>
      Effect.gen(function*() {
        const failure = yield* failureOf(era, "401")
        expect(failure._tag).toBe("Unauthorized")
        expect(failure.status).toBe(401)
        expect(failure.wwwAuthenticate).toBe(bearer401)
      }))

    it.scopedLive(`${era}: 401 with a JSON-RPC -32001 body is Unauthorized, not a timeout`, () =>
      Effect.gen(function*() {
        const failure = yield* failureOf(era, "401-jsonrpc")
        expect(failure._tag).toBe("Unauthorized")
        expect(failure.wwwAuthenticate).toBe(bearer401)
      }))

    it.scopedLive(`${era}: 403 is Forbidden, with the WWW-Authenticate header`, () =>
      Effect.gen(function*() {
        const failure = yield* failureOf(era, "403")
        expect(failure._tag).toBe("Forbidden")
        expect(failure.status).toBe(403)
        expect(failure.wwwAuthenticate).toBe(bearer403)
      }))

    it.scopedLive(`${era}: a 500 without a JSON-RPC error is a TransportError with the status`, () =>
      Effect.gen(function*() {
        const failure = yield* failureOf(era, "500")
        expect(failure._tag).toBe("TransportError")
        expect(failure.status).toBe(500)
      }))

    it.scopedLive(`${era}: a server's real JSON-RPC error is the McpError of its code (500 with -32603)`, () =>
      Effect.gen(function*() {
        expect((yield* failureOf(era, "500-jsonrpc"))._tag).toBe("InternalError")
      }))

    it.scopedLive(`${era}: a real -32001 answer is a RequestTimeout`, () =>
      Effect.gen(function*() {
        expect((yield* failureOf(era, "timeout-error"))._tag).toBe("RequestTimeout")
      }))

    it.scopedLive(`${era}: a JSON answer cut in the middle is a TransportError`, () =>
      Effect.gen(function*() {
        expect((yield* failureOf(era, "cut-json"))._tag).toBe("TransportError")
      }))

    it.scopedLive(`${era}: an SSE answer cut in the middle is a TransportError`, () =>
      Effect.gen(function*() {
        expect((yield* failureOf(era, "cut-sse"))._tag).toBe("TransportError")
      }))

    it.scopedLive(`${era}: a connection closed before any answer is a TransportError`, () =>
      Effect.gen(function*() {
        expect((yield* failureOf(era, "hang-up"))._tag).toBe("TransportError")
      }))

    it.scopedLive(`${era}: a server that stopped listening (connection refused) is a TransportError`, () =>
      Effect.gen(function*() {
        const server = yield* misbehaving(era)
        const client = yield* connect(server.url, era)
        yield* server.stop
        expect(seen(yield* Effect.flip(call(client)))._tag).toBe("TransportError")
      }))

    it.scopedLive(`${era}: a server that never answers is a RequestTimeout`, () =>
      Effect.gen(function*() {
        const server = yield* misbehaving(era)
        const client = yield* connect(server.url, era)
        server.state.mode = "silent"
        expect(seen(yield* Effect.flip(call(client, { timeout: "300 millis" })))._tag).toBe("RequestTimeout")
      }))

    it.scopedLive(`${era}: refused at connection, the handshake failure carries the typed cause`, () =>
      Effect.gen(function*() {
        const server = yield* misbehaving(era)
        server.state.initialize = "401"
        server.state.mode = "401"
        const refused = seen(yield* Effect.flip(connect(server.url, era)))
        expect(refused._tag).toBe("HandshakeFailed")
        expect(refused.cause?._tag).toBe("Unauthorized")
        // A negotiating client (no pinned revision) gives up at the refused probe: it does not try initialize too.
        const negotiating = yield* misbehaving(era)
        negotiating.state.initialize = "401"
        negotiating.state.mode = "401"
        const probed = seen(yield* Effect.flip(connect(negotiating.url, "stateless")))
        expect(probed._tag).toBe("HandshakeFailed")
        expect(probed.cause?._tag).toBe("Unauthorized")
        expect(negotiating.state.posts).toBe(1)
        const closed = yield* misbehaving(era)
        yield* closed.stop
        const unreachable = seen(yield* Effect.flip(connect(closed.url, era)))
        expect(unreachable._tag).toBe("HandshakeFailed")
        expect(unreachable.cause?._tag).toBe("TransportError")
      }))
  }

  it.scopedLive("session: 404 whose renewal the server refuses is SessionExpired; the next call renews it", () =>
    Effect.gen(function*() {
      const server = yield* misbehaving("session")
      const client = yield* connect(server.url, "session")
      server.state.mode = "404"
      server.state.initialize = "404"
      const failure = seen(yield* Effect.flip(call(client)))
      expect(failure._tag).toBe("SessionExpired")
      expect(failure.sessionId).toBe("s1")
      server.state.mode = "ok"
      server.state.initialize = "ok"
      yield* call(client)
    }))

  it.scopedLive("stateless: 404 with -32001 (no session to lose) is a TransportError with the status, not a timeout", () =>
    Effect.gen(function*() {
      const failure = yield* failureOf("stateless", "404")
      expect(failure._tag).toBe("TransportError")
      expect(failure.status).toBe(404)
    }))

  it.scopedLive("the failures are typed: catchTags names each kind", () =>
    Effect.gen(function*() {
      const server = yield* misbehaving("session")
      const client = yield* connect(server.url, "session")
      server.state.mode = "403"
      const kind = yield* call(client).pipe(
        Effect.as("ok"),
        Effect.catchTags({
          Unauthorized: (e: Transport.Unauthorized) => Effect.succeed(`unauthorized ${e.status}`),
          Forbidden: (e: Transport.Forbidden) => Effect.succeed(`forbidden ${e.status} ${e.wwwAuthenticate}`),
          SessionExpired: (e: Transport.SessionExpired) => Effect.succeed(`expired ${e.sessionId}`),
          TransportError: (e: Transport.TransportError) => Effect.succeed(`transport ${e.reason}`),
          RequestTimeout: () => Effect.succeed("timeout")
        })
      )
      expect(kind).toBe(`forbidden 403 ${bearer403}`)
    }))
})
