/**
 * The transport contract: a Stream of incoming frames and a way to send messages. The engine
 * knows nothing of bytes, HTTP or Node; every transport (in-memory, stdio, Streamable HTTP) is a
 * Layer that provides this service.
 */
import type { JsonRpc } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Queue from "effect/Queue"
import type * as Stream from "effect/Stream"

/** Who the transport authenticated the sender of a frame as (e.g. a verified bearer token). */
export interface AuthInfo {
  /** The verified token. */
  readonly token: string
  /** The client the token was issued to. */
  readonly clientId?: string
  /** The scopes the token grants. */
  readonly scopes?: ReadonlyArray<string>
  /** Anything else the verifier learned. */
  readonly extra?: Readonly<Record<string, unknown>>
}

/** One JSON value received from the peer (a message or a batch, not yet validated). */
export interface Frame {
  readonly _tag: "Frame"
  /** The parsed JSON. */
  readonly message: unknown
  /** The authenticated identity of the sender, when the transport verifies one. */
  readonly auth?: AuthInfo
  /** The revision the transport already knows this frame speaks (e.g. from an HTTP header). */
  readonly revision?: string
}

/** Bytes from the peer that were not JSON; the engine answers -32700 with id null. */
export interface Malformed {
  readonly _tag: "Malformed"
  /** Why the bytes could not be parsed. */
  readonly reason: string
  /**
   * When the bytes were a response too large to parse whose start could still be read: the id it answers, so
   * that the request waiting for it fails at once instead of by its timeout.
   */
  readonly responseTo?: JsonRpc.RequestId
}

/** What a transport delivers to the engine. */
export type Incoming = Frame | Malformed

/** Builds a frame. */
export const frame = (message: unknown, extra?: Omit<Frame, "_tag" | "message">): Frame =>
  extra === undefined ? { _tag: "Frame", message } : { _tag: "Frame", message, ...extra }

/** Builds a malformed-input marker. */
export const malformed = (reason: string, responseTo?: JsonRpc.RequestId): Malformed =>
  responseTo === undefined ? { _tag: "Malformed", reason } : { _tag: "Malformed", reason, responseTo }

/** Options of one send. */
export interface SendOptions {
  /** The incoming request this message belongs to (progress, logs, server→client requests, its response). */
  readonly relatedRequestId?: JsonRpc.RequestId
}

/** What can be sent: one message or a batch. */
export type Outgoing = JsonRpc.Message | ReadonlyArray<JsonRpc.Message>

/** The transport failed to send or receive. */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly reason: string
  readonly cause?: unknown
  /** The peer process's exit code, when the transport ended because it exited. */
  readonly exitCode?: number
  /** The last lines the peer process wrote to stderr, when known. */
  readonly stderrTail?: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** A bidirectional MCP message channel. */
export interface TransportService {
  /** Frames from the peer; the stream ends when the peer goes away. */
  readonly incoming: Stream.Stream<Incoming, TransportError>
  /** Sends one message or a batch to the peer. */
  readonly send: (message: Outgoing, options?: SendOptions) => Effect.Effect<void, TransportError>
  /**
   * The queue `incoming` is read from, for a transport whose frames already wait in one and that never fails:
   * the engine then takes from it directly, without a Stream's machinery per frame. Shutting it down is the
   * peer going away. Optional; `incoming` stays the contract.
   */
  readonly inbox?: Queue.Dequeue<Incoming>
}

/** The transport an engine runs over. */
export class Transport extends Context.Tag("@effect-mcp/core/Transport")<Transport, TransportService>() {}
