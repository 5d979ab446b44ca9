/**
 * The engine's vocabulary: the options of an outgoing request and of an engine, the handlers a session gives it, and
 * the `Engine` a connection is to the session above it.
 */
import type { JsonRpc, McpError } from "@effect-mcp/schema"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { ConnectionClosed } from "../../Errors.js"
import type * as Transport from "../../Transport.js"
import * as FrameLimits from "../frameLimits.js"

/** A progress update for one of our requests. */
export interface Progress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** Options of one outgoing request. */
export interface RequestOptions {
  /** How long to wait for the response (default: the engine's, 60 s). */
  readonly timeout?: Duration.DurationInput
  /** Whether a progress notification restarts the timeout (default true). */
  readonly resetTimeoutOnProgress?: boolean
  /** A cap on the total time, however much progress arrives. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Called for each progress notification; setting it attaches a progress token. */
  readonly onProgress?: (progress: Progress) => void
  /** The incoming request this request is made on behalf of. */
  readonly relatedRequestId?: JsonRpc.RequestId
  /** Called with the id the request is sent under (e.g. to recognise notifications tagged with it). */
  readonly onId?: (id: JsonRpc.RequestId) => void
}

/** What can fail an outgoing request. */
export type RequestFailure = McpError.McpError | ConnectionClosed | Transport.RequestError

/** How the session answers what the peer sends; `E` is what a request's handler fails with. */
export interface Handlers<E> {
  /** Answers one request. */
  readonly onRequest: (request: JsonRpc.Request, frame: Transport.Frame) => Effect.Effect<Record<string, unknown>, E>
  /** The error object a request's failure is sent as. */
  readonly toWire: (error: E, request: JsonRpc.Request, frame: Transport.Frame) => JsonRpc.ErrorObject
  /** Handles one notification (cancellation and progress are the engine's and do not reach here). */
  readonly onNotification: (notification: JsonRpc.Notification, frame: Transport.Frame) => Effect.Effect<void>
  /** Whether a JSON array (a batch) is acceptable now (only from revision 2025-03-26 peers). */
  readonly acceptsBatch: () => boolean
  /** The revision the connection speaks, once known (telemetry's `mcp.protocol.version`). */
  readonly revision?: string | undefined
}

/** Engine settings. */
export interface EngineOptions {
  /** At most this many incoming requests run at once (default: unbounded). */
  readonly concurrency?: number
  /** The default timeout of outgoing requests (default 60 s). */
  readonly defaultTimeout?: Duration.DurationInput
  /** How late past its deadline a timeout may fire, so that close deadlines share a sweep (default 10 ms). */
  readonly timeoutResolution?: Duration.DurationInput
  /** Frames nested deeper than this are refused before anything reads them (default {@link defaultMaxDepth}). */
  readonly maxDepth?: number
  /** A JSON-RPC batch of more messages than this is refused whole (default {@link defaultMaxBatchSize}). */
  readonly maxBatchSize?: number
}

/** The default bound on a frame's nesting (see `frameLimits`). */
export const defaultMaxDepth = FrameLimits.defaultMaxDepth

/** The default bound on a batch's length. */
export const defaultMaxBatchSize = FrameLimits.defaultMaxBatchSize

/** A running engine over one connection. */
export interface Engine {
  /** Sends a request and waits for its result. Interrupting the caller cancels it on the wire. */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<Record<string, unknown>, RequestFailure>
  /** Sends a notification. */
  readonly notify: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: Transport.SendOptions
  ) => Effect.Effect<void, Transport.TransportError>
  /** Completes when the connection has ended. */
  readonly closed: Effect.Effect<void>
  /** Whether the connection has ended. */
  readonly isClosed: () => boolean
  /** How many incoming requests are running. */
  readonly inFlight: () => number
  /** How many of our requests await a response. */
  readonly pendingCount: () => number
  /** Runs side work on a fiber of the connection (interrupted when the connection's scope closes). */
  readonly background: (effect: Effect.Effect<void>) => void
}
