/**
 * One connection's session as its concept modules see it: the state they share and the two operations of a request's
 * owner. The session (session.ts) is the one object that holds it; the modules take it as an argument, so that
 * none imports another's home.
 */
import type { JsonRpc, Mcp, Revision } from "@effect-mcp/schema"
import type * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import type * as RequestContext from "../../RequestContext.js"
import type * as Engine from "../engine.js"
import type { Owner, Peer } from "../requestContextImpl.js"
import type { ServerRuntime } from "./runtime.js"
import type { ListKind, McpServerService } from "./service.js"

/** The state of one connection's session. */
export interface SessionState extends Owner {
  /** Sends a notification for `rev` (related to a request, if given); one that cannot be encoded is logged. */
  readonly notify: (
    method: string,
    rev: Revision.Revision,
    params: unknown,
    related?: JsonRpc.RequestId
  ) => Effect.Effect<void>
  /** The server's registry and settings. */
  readonly server: McpServerService
  /** What the server's connections share: its watchers, hubs, task store and request-state signer. */
  readonly runtime: ServerRuntime
  /** The connection's engine. */
  readonly engine: Engine.Engine
  /** The owner of the session's tasks in the server's store. */
  readonly taskOwner: string
  /** The client of the handshake, as its requests' contexts see it. */
  readonly peer: Peer
  /** The negotiated revision, once `initialize` has been answered. */
  revision: Revision.Revision | undefined
  /** The client's self-description from `initialize`. */
  clientInfo: Mcp.Implementation | undefined
  /** The client's capabilities from `initialize`. */
  clientCapabilities: Mcp.ClientCapabilities
  /** The capabilities the session declared (the server's, as of `initialize`). */
  serverCapabilities: Mcp.ServerCapabilities
  /** The threshold `logging/setLevel` set. */
  logLevel: RequestContext.LoggingLevel | undefined
  /** Whether `initialize` has been answered (list changes are sent from then on). */
  ready: boolean
  /** Whether `notifications/initialized` has come; server→client requests wait for it. */
  initialized: boolean
  /** Made for the first server→client request that comes before `notifications/initialized`. */
  whenInitialized: Deferred.Deferred<void> | undefined
  /** The URIs of `resources/subscribe`. */
  subscriptions: Set<string> | undefined
  /** The lists changed since the last `list_changed` went out. */
  changedKinds: Set<ListKind> | undefined
  /** Whether a flush of `changedKinds` is scheduled. */
  flushDue: boolean
}
