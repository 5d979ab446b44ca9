/**
 * One connection's server session: the composition of the handshake (handshake.ts), the 2026-07-28 era
 * (stateless.ts), the method table behind their shared gate (dispatch.ts, methods.ts) and the server's pushed
 * changes (changes.ts). A connection costs one object: the session holds the state every module shares and plays the
 * roles the engine, each request's context and the server need of a connection (its handlers, its requests' owner,
 * a change watcher, its live counts), each by handing over to the module that owns it.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Revision } from "@effect-mcp/schema"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import type * as RequestContext from "../../RequestContext.js"
import type * as Transport from "../../Transport.js"
import * as Engine from "../engine.js"
import type { Peer } from "../requestContextImpl.js"
import * as Scoped from "../scoped.js"
import * as Changes from "./changes.js"
import * as Handshake from "./handshake.js"
import { requestedRevision } from "./meta.js"
import { RuntimeId, type ServerRuntime } from "./runtime.js"
import type { ChangeWatcher, ConnectionCounts, ListKind, McpServerService } from "./service.js"
import type { SessionState } from "./state.js"
import * as Stateless from "./stateless.js"

/** A running server session. */
export interface ServerSession {
  readonly engine: Engine.Engine
  readonly closed: Effect.Effect<void>
  /** The connection's live counts. */
  readonly counts: ConnectionCounts
}

/**
 * One connection's session: its state as fields and its operations on the prototype, with the method handlers in a
 * module-level table, so that a connection allocates a few objects rather than a closure per operation.
 */
class Session implements SessionState, Engine.Handlers<McpError.McpError>, ChangeWatcher, ConnectionCounts {
  engine!: Engine.Engine
  revision: Revision.Revision | undefined = undefined
  clientInfo: Mcp.Implementation | undefined = undefined
  clientCapabilities: Mcp.ClientCapabilities = {}
  serverCapabilities: Mcp.ServerCapabilities
  logLevel: RequestContext.LoggingLevel | undefined = undefined
  ready = false
  initialized = false
  whenInitialized: Deferred.Deferred<void> | undefined = undefined
  subscriptions: Set<string> | undefined = undefined
  changedKinds: Set<ListKind> | undefined = undefined
  flushDue = false
  readonly runtime: ServerRuntime
  readonly taskOwner: string
  readonly peer: Peer = new Handshake.HandshakePeer(this)

  constructor(readonly server: McpServerService) {
    this.serverCapabilities = server.capabilities()
    this.runtime = server[RuntimeId]
    this.taskOwner = this.runtime.nextTaskOwner()
  }

  /**
   * The session's scope finalizer (bound), run once the engine has shut down: what the session holds of the server
   * goes, its count in `stats`, its watch of changes, and its tasks (a handshake session owns its tasks, which end
   * with it). One finalizer for the three, where a scope finalizer each cost about 400 bytes a connection.
   */
  readonly release = (): Effect.Effect<void> => {
    this.runtime.forget(this)
    return this.runtime.tasks.release(this.taskOwner)
  }

  // ---------- the owner of its requests ----------

  notify(method: string, rev: Revision.Revision, params: unknown, related?: JsonRpc.RequestId): Effect.Effect<void> {
    const encoded = Codec.encodeParams(method, rev, params)
    if (Either.isLeft(encoded)) {
      return Effect.logWarning(`effect-mcp: could not encode ${method} for ${rev}`, Codec.describe(encoded.left))
    }
    return this.engine.notify(
      method,
      encoded.right as Record<string, unknown> | undefined,
      related === undefined ? undefined : { relatedRequestId: related }
    ).pipe(Effect.catchAll(() => Effect.void))
  }

  logging(): boolean {
    return this.serverCapabilities.logging !== undefined
  }

  // ---------- the engine's handlers ----------

  onRequest(
    request: JsonRpc.Request,
    frame: Transport.Frame
  ): Effect.Effect<Record<string, unknown>, McpError.McpError> {
    const method = request.method
    const requested = requestedRevision(request, frame)
    if (requested !== undefined && method !== "initialize") {
      return Stateless.dispatch(this, request, frame, requested)
    }
    return method === "initialize" ? Handshake.initialize(this, request) : Handshake.dispatch(this, request, frame)
  }

  toWire(e: McpError.McpError, request: JsonRpc.Request, frame: Transport.Frame): JsonRpc.ErrorObject {
    const requested = requestedRevision(request, frame)
    const rev = Revision.isRevision(requested) && Revision.isStateless(requested)
      ? requested
      : this.revision ?? Revision.latestHandshake
    return McpError.toWire(e, rev)
  }

  onNotification(notification: JsonRpc.Notification): Effect.Effect<void> {
    switch (notification.method) {
      case "notifications/initialized":
        return Handshake.initialized(this)
      default:
        return Effect.logDebug(`effect-mcp: ignored notification ${notification.method}`)
    }
  }

  acceptsBatch(): boolean {
    return this.revision === "2025-03-26"
  }

  // ---------- the server's change watcher ----------

  listChanged(kind: ListKind): void {
    Changes.listChanged(this, kind)
  }

  resourceUpdated(uri: string): void {
    Changes.resourceUpdated(this, uri)
  }

  // ---------- the server's counts ----------

  inFlight(): number {
    return this.engine.inFlight()
  }

  pending(): number {
    return this.engine.pendingCount()
  }

  isClosed(): boolean {
    return this.engine.isClosed()
  }
}

/** Starts a session over the current transport, counted in the server's `stats` unless `counted` is false. */
export const make = (
  server: McpServerService,
  counted: boolean
): Effect.Effect<ServerSession, never, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const session = new Session(server)
    // Registered before the engine's finalizer, so that it runs after the engine has shut down.
    yield* Scoped.whenClosed(yield* Effect.scope, session.release)
    const { concurrency, maxBatchSize, maxDepth } = server.options
    const engine = yield* Engine.make(session, {
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
      ...(maxBatchSize === undefined ? {} : { maxBatchSize })
    })
    session.engine = engine
    // A scope closed already has released the session and shut the engine down: it is not counted.
    if (counted && !engine.isClosed()) session.runtime.count(session)
    return { engine, closed: engine.closed, counts: session }
  })
