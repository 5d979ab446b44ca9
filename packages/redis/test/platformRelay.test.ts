// Two servers mounted through the @effect/platform adapter on the platform's node server (one with
// `McpHttpServer.layer`, the other with `McpHttpServer.layerRouter` under `HttpLayerRouter.serve`), each on its own
// loopback port with its own connection to one real redis-server: they advertise their origins to the
// session directory by themselves, so a request for a session held by one, sent to the other, is relayed to its owner
// (Streamable HTTP, and a legacy HTTP+SSE POST).
import { startRedis } from "@effect-mcp-examples/redis-server"
import { McpServer } from "@effect-mcp/core"
import { McpHttpServer } from "@effect-mcp/http"
import { McpRedis } from "@effect-mcp/redis"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"

/** How the endpoint is mounted on the platform's server. */
const mounted = {
  layer: McpHttpServer.layer({ legacySse: true }),
  layerRouter: HttpLayerRouter.serve(McpHttpServer.layerRouter({ legacySse: true }), {
    disableLogger: true,
    disableListenLog: true
  })
}

/** One server process: a tool that names it, the endpoint on the platform's node server, its state on Redis. */
const serverProcess = (label: string, redisUrl: string, prefix: string, mount: keyof typeof mounted) =>
  Effect.gen(function*() {
    const which = McpServer.tool({
      name: "which",
      description: "Names the server that answered",
      input: Schema.Struct({}),
      handler: () => Effect.succeed(label)
    })
    const context = yield* Layer.build(
      mounted[mount].pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
        Layer.provideMerge(which.pipe(Layer.provideMerge(McpServer.layer({ name: "relayed", version: "1" })))),
        Layer.provideMerge(McpRedis.layer({ url: redisUrl, prefix }))
      )
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("not on TCP")
    return `http://127.0.0.1:${address.port}`
  })

let prefixes = 0

const twoServers = Effect.gen(function*() {
  const redis = yield* startRedis
  const prefix = `relay${++prefixes}:`
  return {
    a: yield* serverProcess("a", redis.url, prefix, "layer"),
    b: yield* serverProcess("b", redis.url, prefix, "layerRouter")
  }
})

const accept = "application/json, text/event-stream"

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept, ...headers },
      body: JSON.stringify(body)
    })
  )

const initialize = (revision: string) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "relay-test", version: "1" } }
})
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const callWhich = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "which", arguments: {} } }

/** Reads an SSE body until `done` holds for what was read so far. */
const readUntil = (reader: ReadableStreamDefaultReader<Uint8Array>, done: (text: string) => boolean) =>
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

describe("a relay between servers mounted through @effect/platform", () => {
  it.scopedLive("a Streamable HTTP session's requests sent to the other server reach the one that holds it", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoServers
      const opened = yield* post(`${a}/mcp`, initialize("2025-11-25"))
      expect(opened.status).toBe(200)
      const session = opened.headers.get("mcp-session-id")!
      yield* Effect.promise(() => opened.text())
      const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
      expect((yield* post(`${b}/mcp`, initialized, headers)).status).toBe(202)
      const called = yield* post(`${b}/mcp`, callWhich, headers)
      expect(called.status).toBe(200)
      expect(yield* Effect.promise(() => called.text())).toContain("\"text\":\"a\"")
      // The other way round: a session held by b, used through a.
      const openedOnB = yield* post(`${b}/mcp`, initialize("2025-11-25"))
      const onB = { "mcp-session-id": openedOnB.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" }
      yield* Effect.promise(() => openedOnB.text())
      expect((yield* post(`${a}/mcp`, initialized, onB)).status).toBe(202)
      const calledOnB = yield* post(`${a}/mcp`, callWhich, onB)
      expect(yield* Effect.promise(() => calledOnB.text())).toContain("\"text\":\"b\"")
    }))

  it.scopedLive("a legacy HTTP+SSE POST sent to the other server is answered on the stream of the one that holds it", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoServers
      const reader = yield* Effect.acquireRelease(
        Effect.promise(() =>
          fetch(`${a}/sse`, { headers: { accept: "text/event-stream" } }).then((stream) => stream.body!.getReader())
        ),
        (reader) => Effect.promise(() => reader.cancel())
      )
      const named = yield* readUntil(reader, (text) => /event: endpoint\ndata: \S+\n/.test(text))
      const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(named)![1]!
      expect((yield* post(`${b}${endpoint}`, initialize("2024-11-05"))).status).toBe(202)
      expect(yield* readUntil(reader, (text) => text.includes("protocolVersion"))).toContain("\"id\":0")
      expect((yield* post(`${b}${endpoint}`, initialized)).status).toBe(202)
      expect((yield* post(`${b}${endpoint}`, callWhich)).status).toBe(202)
      expect(yield* readUntil(reader, (text) => text.includes("\"id\":1"))).toContain("\"text\":\"a\"")
      // A session nobody holds is 404 on either server.
      const unknown = `/messages?sessionId=${"0".repeat(32)}`
      expect((yield* post(`${b}${unknown}`, callWhich)).status).toBe(404)
    }))
})
