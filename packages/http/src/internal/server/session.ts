/**
 * A handshake-era session (2025-03-26 … 2025-11-25) as the endpoint keeps it: its connection's inbound, its streams
 * (the standalone GET stream and one per POST that carries requests), which stream awaits each request's response,
 * its place among the server's sessions, and whether it may be evicted.
 */
import type { McpServer, Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Outbox from "../outbox.js"
import type * as SessionLimits from "../sessionLimits.js"

/** A session (of either transport) as the session limits see it, and how to end it. */
export interface Slot extends SessionLimits.Member {
  readonly close: Effect.Effect<void>
}

/** One handshake session. */
export interface Session {
  readonly id: string
  readonly scope: Scope.CloseableScope
  readonly incoming: Transport.Inbound
  readonly standalone: Outbox.OutStream
  /** Live POST streams by key. */
  readonly streams: Map<string, Outbox.OutStream>
  /** The POST stream of each request in flight. */
  readonly routes: Map<JsonRpc.RequestId, Outbox.OutStream>
  /**
   * Ids cancelled while no request of theirs was in flight (the newest {@link maxCancelledEarly}): a cancellation
   * travels on a POST of its own, so it can overtake its request; the request is cancelled when it arrives.
   */
  readonly cancelledEarly: Set<JsonRpc.RequestId>
  revision: string | undefined
  initializeId: JsonRpc.RequestId | undefined
  nextStream: number
  lastActivity: number
  active: number
  closed: boolean
  /** The authenticated client that created the session: only it may use the session. */
  readonly owner: string | undefined
  /** Its place among the server's sessions (the session limits). */
  readonly slot: Slot
  /** Its connection's live counts (handlers running, server→client requests pending), once it is served. */
  counts: McpServer.ConnectionCounts | undefined
}

/** How many ids cancelled before their request arrived a session remembers (ids are never reused in a session). */
export const maxCancelledEarly = 1_024

/** Whether a session may be evicted: initialized, no stream open, nothing in flight, nothing pending. */
export const isIdle = (s: Session): boolean => {
  if (s.closed || s.revision === undefined || s.active > 0 || s.routes.size > 0 || Outbox.isAttached(s.standalone)) {
    return false
  }
  if (s.counts !== undefined && (s.counts.inFlight() > 0 || s.counts.pending() > 0)) return false
  for (const stream of s.streams.values()) if (Outbox.isAttached(stream)) return false
  return true
}

/** Whether a value has the form of a session id this endpoint makes (`randomId`): anything else names no session. */
export const isSessionId = (id: string): boolean => /^[0-9a-f]{32}$/.test(id)

/** A new session id: 128 random bits in hex. */
export const randomId = (): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16))
  let hex = ""
  for (const b of bytes) hex += b.toString(16).padStart(2, "0")
  return hex
}
