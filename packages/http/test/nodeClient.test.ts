import { McpClient, McpServer, Transport } from "@effect-mcp/core"
import { McpNodeHttpClient, McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFileSync } from "node:fs"
import * as Http from "node:http"
import * as Https from "node:https"
import { adapter, info, listenOnLoopback, tools } from "./helpers.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))

/** Serves the test tools with McpNodeHttpServer's listener on `server` (127.0.0.1), counting TCP connections. */
const serveOn = (server: Http.Server) =>
  Effect.gen(function*() {
    const mcp = yield* Layer.build(tools().pipe(Layer.provideMerge(McpServer.layer(info))))
    const onRequest = yield* McpNodeHttpServer.listener().pipe(Effect.provide(mcp))
    server.on("request", onRequest)
    const counted = { connections: 0 }
    server.on(server instanceof Https.Server ? "secureConnection" : "connection", () => void counted.connections++)
    const port = yield* listenOnLoopback(server)
    return { port, counted }
  })

const callMany = (url: string, agents: McpNodeHttpClient.Agents | undefined, revision?: "2025-11-25") =>
  Effect.gen(function*() {
    const transport = yield* McpNodeHttpClient.make({ url }, agents)
    const client = yield* McpClient.make({ name: "t", version: "0", ...(revision === undefined ? {} : { revision }) })
      .pipe(Effect.provideService(Transport.Transport, transport))
    for (let i = 0; i < 100; i++) {
      const result = yield* client.callTool("echo", { text: `n${i}` })
      expect(JSON.stringify(result.content)).toContain(`n${i}`)
    }
  })

// McpNodeHttpClient is the client of the whole `http` project; these check its connections. Skipped under
// http-platform, where they would run the same.
describe.skipIf(adapter !== "node")("McpNodeHttpClient", () => {
  it.scopedLive("100 sequential calls of a session go over a few keep-alive connections", () =>
    Effect.gen(function*() {
      const { counted, port } = yield* serveOn(Http.createServer())
      yield* Effect.scoped(callMany(`http://127.0.0.1:${port}/mcp`, undefined, "2025-11-25"))
      // One for the POSTs, one for the standalone GET stream, one for the DELETE that may overlap them.
      expect(counted.connections).toBeGreaterThan(0)
      expect(counted.connections).toBeLessThanOrEqual(3)
    }))

  it.scopedLive("https, through agents of one's own (trusting a self-signed certificate), stateless", () =>
    Effect.gen(function*() {
      const cert = fixture("localhost-cert.pem")
      const { counted, port } = yield* serveOn(Https.createServer({ key: fixture("localhost-key.pem"), cert }))
      const agents = yield* Effect.acquireRelease(
        Effect.sync(() => ({
          http: new Http.Agent({ keepAlive: true }),
          https: new Https.Agent({ keepAlive: true, ca: cert })
        })),
        (pools) => Effect.sync(() => pools.https.destroy())
      )
      yield* Effect.scoped(callMany(`https://127.0.0.1:${port}/mcp`, agents))
      expect(counted.connections).toBeGreaterThan(0)
      expect(counted.connections).toBeLessThanOrEqual(3)
      // The agents were the caller's: the transport left them open, and another transport uses them.
      yield* Effect.scoped(callMany(`https://127.0.0.1:${port}/mcp`, agents))
    }))

  it.scopedLive("a server that is not there fails the handshake with a typed error", () =>
    Effect.gen(function*() {
      // A port that was free a moment ago: nothing listens there.
      const probe = Http.createServer()
      const port = yield* Effect.async<number>((resume) => {
        probe.listen(0, "127.0.0.1", () => {
          const address = probe.address()
          probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
        })
      })
      const closed = yield* Effect.scoped(
        McpNodeHttpClient.make({ url: `http://127.0.0.1:${port}/mcp` }).pipe(
          Effect.flatMap((transport) =>
            McpClient.make({ name: "t", version: "0" }).pipe(Effect.provideService(Transport.Transport, transport))
          ),
          Effect.flip
        )
      )
      expect(closed._tag).toBe("HandshakeFailed")
    }))
})
