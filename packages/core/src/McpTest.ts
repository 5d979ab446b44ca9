/**
 * Test helpers: link an McpClient to a server in memory, with no sockets, so that a test of a
 * server is a few lines of `it.effect`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { HandshakeFailed } from "./Errors.js"
import * as InMemoryTransport from "./InMemoryTransport.js"
import * as McpClient from "./McpClient.js"
import * as McpServer from "./McpServer.js"
import * as Transport from "./Transport.js"

/** The client options tests use unless told otherwise. */
export const defaultClient: McpClient.Options = { name: "effect-mcp-test-client", version: "0.0.0" }

/**
 * Builds the server and starts its session on one end of an in-memory pair (`McpServer.connect`: the session waits
 * for frames without a fiber of its own), and returns the other end with the server.
 */
const served = <E, R>(server: Layer.Layer<McpServer.McpServer, E, R>) =>
  Effect.gen(function*() {
    const pair = yield* InMemoryTransport.makePair
    const context = yield* Layer.build(server)
    yield* McpServer.connect.pipe(
      Effect.provideService(McpServer.McpServer, Context.get(context, McpServer.McpServer)),
      Effect.provideService(Transport.Transport, pair.server)
    )
    return { client: pair.client, context }
  })

/**
 * A client connected in memory to the server that `server` builds (a Layer providing McpServer,
 * with its tools, resources and prompts registered). Client handlers (sampling, elicitation,
 * roots) are picked up from the context when provided.
 *
 * The client negotiates 2026-07-28 unless pinned: `layer(server, { ...defaultClient, revision: "2025-11-25" })` runs
 * the same test over a 2025-11-25 handshake. Results read the same in both (no `resultType`, cache hints or
 * server identity in `_meta`), so one test body serves every revision.
 */
export const layer = <E, R>(
  server: Layer.Layer<McpServer.McpServer, E, R>,
  client: McpClient.Options = defaultClient
): Layer.Layer<McpClient.McpClient | McpServer.McpServer, E | HandshakeFailed, R> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const end = yield* served(server)
      const connected = yield* McpClient.make(client).pipe(Effect.provideService(Transport.Transport, end.client))
      return Context.add(end.context, McpClient.McpClient, connected)
    })
  )

/**
 * A client's Transport whose other end is served, in memory, by the server that `server` builds: a server
 * as a Transport Layer, for hosts and clients under test.
 */
export const serverTransport = <E, R>(
  server: Layer.Layer<McpServer.McpServer, E, R>
): Layer.Layer<Transport.Transport, E, R> =>
  Layer.scoped(Transport.Transport, Effect.map(served(server), (end) => end.client))
