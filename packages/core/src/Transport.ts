/**
 * The transport contract: a receiving side that hands each incoming frame to the engine as it
 * arrives, and a way to send messages. The engine knows nothing of bytes, HTTP or Node; every
 * transport (in-memory, stdio, Streamable HTTP) is a Layer that provides this service.
 */
import type { JsonRpc } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

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
  /**
   * The id the peer gave this request, when the transport renumbered it to keep the requests of several peers
   * apart on one connection (2026-07-28 HTTP requests share one): the request context reports this id.
   */
  readonly requestId?: string | number
}

/**
 * What the transport could not turn into a frame: bytes from the peer that were not JSON (the engine answers -32700
 * with id null), or, with `responseTo`, the answer to one of our requests that the transport could not read or get
 * (the engine fails that request, and that request only, instead of waiting for its timeout).
 */
export interface Malformed {
  readonly _tag: "Malformed"
  /** Why the bytes could not be parsed, or why no answer came. */
  readonly reason: string
  /**
   * The id of our request whose answer this was: a response too large to parse whose start could still be read, or
   * one the transport could not get at all (see `failed`).
   */
  readonly responseTo?: JsonRpc.RequestId
  /** What the request `responseTo` fails with (default: a TransportError saying the response was dropped). */
  readonly failure?: RequestError
}

/** What a transport delivers to the engine. */
export type Incoming = Frame | Malformed

/** Builds a frame. */
export const frame = (message: unknown, extra?: Omit<Frame, "_tag" | "message">): Frame =>
  extra === undefined ? { _tag: "Frame", message } : { _tag: "Frame", message, ...extra }

/** Builds a malformed-input marker. */
export const malformed = (reason: string, responseTo?: JsonRpc.RequestId): Malformed =>
  responseTo === undefined ? { _tag: "Malformed", reason } : { _tag: "Malformed", reason, responseTo }

/**
 * One of our requests got no answer for a reason the transport knows (the network failed, the peer refused our
 * credentials, our session expired): the engine fails that request with `failure`, not with a JSON-RPC error the
 * peer never sent.
 */
export const failed = (requestId: JsonRpc.RequestId, failure: RequestError): Malformed => ({
  _tag: "Malformed",
  reason: failure.message,
  responseTo: requestId,
  failure
})

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
  /** The HTTP status of the answer that failed the request, when there was one. */
  readonly status?: number
}> {
  override get message(): string {
    return this.reason
  }
}

/** The peer refused our credentials (HTTP 401): none, or not valid; `wwwAuthenticate` says how to authenticate. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{
  readonly reason: string
  /** The HTTP status (401). */
  readonly status: number
  /** The peer's `WWW-Authenticate` header, when it sent one (its scheme, error, scope and resource metadata). */
  readonly wwwAuthenticate?: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** The peer refused the request for our credentials (HTTP 403, e.g. a missing scope, named by `wwwAuthenticate`). */
export class Forbidden extends Data.TaggedError("Forbidden")<{
  readonly reason: string
  /** The HTTP status (403). */
  readonly status: number
  /** The peer's `WWW-Authenticate` header, when it sent one (e.g. `error="insufficient_scope"` and the scope). */
  readonly wwwAuthenticate?: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** The peer no longer knows our session (HTTP 404) and it could not be renewed. */
export class SessionExpired extends Data.TaggedError("SessionExpired")<{
  /** The session the peer forgot. */
  readonly sessionId: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `session ${this.sessionId} expired: ${this.reason}`
  }
}

/** Every way a transport can fail one of our requests instead of bringing the peer's answer. */
export type RequestError = TransportError | Unauthorized | Forbidden | SessionExpired

/** Hands one frame from the peer to the engine (synchronously; frames are handed over in the order they arrived). */
export type Deliver = (incoming: Incoming) => void

/** Receives without a fiber: `deliver` gets each frame, `onEnd` the end (or the failure); the result stops it. */
export type Listen = (deliver: Deliver, onEnd: (failure?: TransportError) => void) => () => void

/** A bidirectional MCP message channel. */
export interface TransportService {
  /**
   * Runs the receiving side: hands every frame from the peer to `deliver` as it arrives, in order. Completes
   * when the peer goes away, fails when the transport does. The engine calls it once, in a fiber of its own, unless
   * the transport offers `listen`.
   */
  readonly receive: (deliver: Deliver) => Effect.Effect<void, TransportError>
  /**
   * Optionally, the receiving side without a fiber, for a transport whose frames are pushed in (see `Inbound`): hands
   * every frame to `deliver` as it arrives, in order, and calls `onEnd` once when the peer goes away (with the
   * failure, when the transport fails). Returns what stops it. An engine uses it, when present, instead of running
   * `receive` in a fiber of its own (about 5 KB per connection).
   */
  readonly listen?: Listen
  /** Sends one message or a batch to the peer. */
  readonly send: (message: Outgoing, options?: SendOptions) => Effect.Effect<void, TransportError>
  /** Optionally, what telemetry records of the connection (read when a span starts: a session id may come later). */
  readonly describe?: () => Description
}

/** What a transport tells telemetry about its connection (OpenTelemetry attribute values). */
export interface Description {
  /** `network.transport`: `"pipe"` for stdio, `"tcp"` for HTTP. */
  readonly networkTransport?: string
  /** `mcp.session.id`: the session the connection belongs to, once it has one. */
  readonly sessionId?: string
  /** `server.address`, on the client side. */
  readonly serverAddress?: string
  /** `server.port`, on the client side. */
  readonly serverPort?: number
}

/** `receive` for a transport whose frames arrive as a Stream: each chunk is handed over as it comes. */
export const receiveStream =
  (incoming: Stream.Stream<Incoming, TransportError>): TransportService["receive"] => (deliver) =>
    Stream.runForEachChunk(incoming, (chunk) =>
      Effect.sync(() => {
        for (const item of chunk) deliver(item)
      }))

/**
 * The receiving side of a transport whose frames are pushed in as they come (in-memory, HTTP): a frame pushed
 * while the engine receives reaches it at once, in the pusher's call; one pushed before is kept until it does.
 */
export interface Inbound {
  /** Hands a frame over (or keeps it until the engine receives); false once the inbound has ended. */
  readonly push: (incoming: Incoming) => boolean
  /** The peer went away: `receive` completes, once every frame kept so far is handed over. */
  readonly end: () => void
  /** The transport's `receive`. */
  readonly receive: TransportService["receive"]
  /** The transport's `listen`: `receive` without a fiber. */
  readonly listen: Listen
}

/**
 * Makes an Inbound now (it holds no resource; `end` it when the peer goes away). Prefer `makeInbound`; this synchronous
 * form is for a transport built outside an Effect.
 */
export const unsafeMakeInbound = (): Inbound => {
  let receiver: Deliver | undefined
  let kept: Array<Incoming> = []
  let ended = false
  let onEnd: (() => void) | undefined
  const listen: Listen = (deliver, whenEnded) => {
    // Frames pushed while the kept ones are handed over join the end of the same array, in order.
    for (let i = 0; i < kept.length; i++) deliver(kept[i]!)
    kept = []
    if (ended) {
      whenEnded()
      return () => {}
    }
    receiver = deliver
    onEnd = whenEnded
    // Stopping a listener that has since been replaced leaves the new one alone.
    return () => {
      if (receiver !== deliver) return
      receiver = undefined
      onEnd = undefined
    }
  }
  return {
    push: (incoming) => {
      if (ended) return false
      if (receiver === undefined) kept.push(incoming)
      else receiver(incoming)
      return true
    },
    end: () => {
      if (ended) return
      ended = true
      const wake = onEnd
      receiver = undefined
      onEnd = undefined
      wake?.()
    },
    listen,
    receive: (deliver) =>
      Effect.async<void>((resume) => {
        const stop = listen(deliver, () => resume(Effect.void))
        return Effect.sync(stop)
      })
  }
}

/** Makes an Inbound. */
export const makeInbound: Effect.Effect<Inbound> = Effect.sync(unsafeMakeInbound)

/** The transport an engine runs over. */
export class Transport extends Context.Tag("@effect-mcp/core/Transport")<Transport, TransportService>() {}
