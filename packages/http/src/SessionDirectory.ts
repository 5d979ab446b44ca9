/**
 * Where the handshake sessions (2025-11-25 and older) of a server on several processes live: each process records
 * the sessions it creates under the origin it is reachable at, and a process that gets a request for a session it
 * does not hold relays it to the session's owner and streams the answer back, so that a load balancer need not be
 * sticky; the legacy HTTP+SSE transport's POSTs are relayed the same way to the process that holds the session's
 * stream. When the owner is gone the client gets 404 and initializes again, as the spec allows. Without a
 * `SessionDirectory` in context an endpoint relays nothing; `@effect-mcp/redis` provides one.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** The directory could not be read or written (its backend is unreachable). */
export class SessionDirectoryError extends Data.TaggedError("SessionDirectoryError")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  /** The reason, as the error's message. */
  override get message(): string {
    return this.reason
  }
}

/** The sessions of every process, by id. */
export interface SessionDirectoryService {
  /**
   * Sets the origin (`http://host:port`) at which the other processes reach this one: the node:http server and the
   * endpoint on an `@effect/platform` `HttpServer` do (or `McpHttpServer.Options.relayOrigin`).
   */
  readonly advertise: (origin: string) => Effect.Effect<void>
  /** Records that this process owns a session (a no-op until it has advertised its origin). */
  readonly claim: (sessionId: string) => Effect.Effect<void, SessionDirectoryError>
  /** The origin of the process that owns a session, unless it is this one or unknown. */
  readonly owner: (sessionId: string) => Effect.Effect<string | undefined, SessionDirectoryError>
  /** Forgets a session (it ended, or its owner is gone). */
  readonly release: (sessionId: string) => Effect.Effect<void, SessionDirectoryError>
}

/** The session directory of a server on several processes. */
export class SessionDirectory extends Context.Tag("@effect-mcp/http/SessionDirectory")<
  SessionDirectory,
  SessionDirectoryService
>() {}

/** The header a relayed request carries, so that it is never relayed again. */
export const relayedHeader = "x-effect-mcp-relayed"
