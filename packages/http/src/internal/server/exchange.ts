/**
 * What the endpoint reads and writes, whichever HTTP server carries it: a request's head and its body on demand
 * (`Incoming`), and an answer (`Reply`). The node:http and @effect/platform adapters (and a web-standard one) turn
 * their own requests and responses into these.
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/** What the endpoint reads of an HTTP request, whichever server carries it. */
export interface RequestHead {
  /** The method, upper case. */
  readonly method: string
  /** The path and query. */
  readonly url: string
  /** The headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The peer's IP address, when the server knows it. */
  readonly remoteAddress?: string | undefined
}

/** The request body was larger than the endpoint accepts (answered 413). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The request body could not be read (the client went away, or sent something that is not a body). */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}

/** An HTTP request as the endpoint reads it: its head, and its body as text on demand. */
export interface Incoming extends RequestHead {
  /** Reads the whole body as UTF-8, refusing one larger than `limit` bytes. */
  readonly readText: (limit: number) => Effect.Effect<string, BodyTooLarge | BodyUnreadable>
}

/** An answer of the endpoint, for the server adapter to write. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The `Content-Type` of the body, when there is one. */
  readonly contentType?: string
  /** A whole body, or a stream (SSE, or an answer relayed from another process) written as it comes, or none. */
  readonly body?: string | Stream.Stream<Uint8Array>
}
