/**
 * Shared test helpers: a raw JSON-RPC peer driving a real server session over the in-memory
 * transport, for checks at the wire level.
 */
import { type Errors, McpClient, McpServer, McpTest, Transport } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/** Hands a frame to the engine on the other side. */
const pushTo = (inbound: Transport.Inbound, incoming: Transport.Incoming): Effect.Effect<void> =>
  Effect.sync(() => {
    inbound.push(incoming)
  })

/** A raw peer of a server: send JSON (or garbage), read what the server sends. */
export interface RawPeer {
  readonly send: (message: unknown) => Effect.Effect<void>
  readonly sendMalformed: (reason: string) => Effect.Effect<void>
  readonly next: Effect.Effect<any>
  readonly close: Effect.Effect<void>
  /** Sends initialize + initialized and returns the initialize result. */
  readonly handshake: (protocolVersion?: string, capabilities?: object) => Effect.Effect<any>
}

/** Starts `server` (a Layer providing McpServer) on an in-memory transport driven by a raw peer. */
export const rawPeer = <E>(
  server: Layer.Layer<McpServer.McpServer, E>
): Effect.Effect<RawPeer, E, Scope.Scope> =>
  Effect.gen(function*() {
    const toServer = yield* Transport.makeInbound
    const fromServer = yield* Queue.unbounded<unknown>()
    const transport: Transport.TransportService = {
      receive: toServer.receive,
      send: (m) => Queue.offer(fromServer, m).pipe(Effect.asVoid)
    }
    const context = yield* Layer.build(server)
    yield* McpServer.serve.pipe(
      Effect.provide(context),
      Effect.provideService(Transport.Transport, transport),
      Effect.forkScoped
    )
    const send = (message: unknown) => pushTo(toServer, Transport.frame(message))
    const next = Queue.take(fromServer)
    return {
      send,
      sendMalformed: (reason) => pushTo(toServer, Transport.malformed(reason)),
      next,
      close: Effect.sync(toServer.end),
      handshake: (protocolVersion = "2025-11-25", capabilities = {}) =>
        Effect.gen(function*() {
          yield* send({
            jsonrpc: "2.0",
            id: "init",
            method: "initialize",
            params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "0" } }
          })
          const response = yield* next
          yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
          return response
        })
    }
  })

/** Connects a client in memory to `server` for the rest of the current scope (handlers optional). */
export const connect = <E>(
  server: Layer.Layer<McpServer.McpServer, E>,
  options: { readonly client?: McpClient.Options; readonly handlers?: Layer.Layer<any> } = {}
): Effect.Effect<McpClient.McpClientService, E | Errors.HandshakeFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const layer = McpTest.layer(server, options.client)
    const context = yield* Layer.build(options.handlers ? Layer.provide(layer, options.handlers) : layer)
    return Context.get(context, McpClient.McpClient)
  })

/**
 * A raw server for a client under test: the test reads what the client sends and answers by hand. `beforeSend`
 * runs in each of the client's sends before the message is handed over (a transport that makes a send wait).
 */
export const makeRawServer = (beforeSend: (message: any) => Effect.Effect<void> = () => Effect.void) =>
  Effect.gen(function*() {
    const toClient = yield* Transport.makeInbound
    const fromClient = yield* Queue.unbounded<any>()
    const transport: Transport.TransportService = {
      receive: toClient.receive,
      send: (m) => Effect.zipRight(beforeSend(m), Queue.offer(fromClient, m)).pipe(Effect.asVoid)
    }
    const send = (message: unknown) => pushTo(toClient, Transport.frame(message))
    const next = Queue.take(fromClient)
    return {
      layer: Layer.succeed(Transport.Transport, transport),
      send,
      next,
      close: Effect.sync(toClient.end),
      /** Answers the client's initialize (with the revision it asked for) and waits for initialized. */
      acceptHandshake: Effect.gen(function*() {
        const init = yield* next
        yield* send({
          jsonrpc: "2.0",
          id: init.id,
          result: {
            protocolVersion: init.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "raw-server", version: "0" }
          }
        })
        const initialized = yield* next
        if (initialized.method !== "notifications/initialized") return yield* Effect.die("expected initialized")
        return init
      })
    }
  })

/** A raw server for a client under test whose sends never wait. */
export const rawServer = makeRawServer()
