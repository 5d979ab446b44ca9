/**
 * The client's GET streams: the standalone stream that carries the server's own messages (opened once after the
 * handshake, reconnected with backoff, started afresh under a new session), and the resumption of a POST's cut answer
 * stream with `Last-Event-ID`. Both wait on the `reconnect` schedule after a failed attempt and on the server's
 * `retry` after a connection it closed.
 */
import type { Transport } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberMap from "effect/FiberMap"
import * as Schedule from "effect/Schedule"
import * as Answer from "./answer.js"
import * as Outgoing from "./outgoing.js"
import { type ClientState, type Cursor, Failed } from "./state.js"

/** Renews a session the server forgot (see `session.ts`). */
export type Renew = (stale: string) => Effect.Effect<void, Transport.SessionExpired>

/** The standalone GET stream, until the server refuses it (405), the session cannot be renewed or the schedule ends. */
const listen = (client: ClientState, renew: Renew) =>
  Effect.gen(function*() {
    const driver = yield* Schedule.driver(client.reconnect)
    const cursor = { lastEventId: undefined as string | undefined, retryMs: undefined as number | undefined }
    let cursorSession = client.sessionId
    while (true) {
      // A renewal under way (the session is unset meanwhile): the stream follows the new session once it is made.
      if (client.reinitializing !== undefined) yield* Effect.either(client.reinitializing)
      const stale = client.sessionId
      // Event ids belong to a session: a new session starts its stream afresh.
      if (stale !== cursorSession) {
        cursor.lastEventId = undefined
        cursorSession = stale
      }
      const headers = yield* Outgoing.headersFor(client, undefined, true)
      const response = yield* Effect.either(Outgoing.execute(client, {
        method: "GET",
        url: client.url,
        headers: {
          ...headers,
          accept: "text/event-stream",
          ...(cursor.lastEventId === undefined ? {} : { "last-event-id": cursor.lastEventId })
        }
      }))
      if (Either.isRight(response)) {
        const status = response.right.status
        if (status === 405) return
        if (status === 404 && stale !== undefined) {
          // The session is gone: continue under a new one (or stop if the server will not have us).
          if (Either.isLeft(yield* Effect.either(renew(stale)))) return
          continue
        }
        if (status >= 200 && status < 300) {
          yield* driver.reset
          yield* Effect.either(Answer.read(client, response.right, cursor))
          // The server closed the stream: its `retry` is the whole wait before the next connection.
          if (cursor.retryMs !== undefined) {
            yield* Effect.sleep(Duration.millis(cursor.retryMs))
            continue
          }
        }
      }
      const next = yield* Effect.either(driver.next(undefined))
      if (Either.isLeft(next)) return
      if (cursor.retryMs !== undefined) yield* Effect.sleep(Duration.millis(cursor.retryMs))
    }
  })

const listenerKey = "effect-mcp-standalone-stream"

/** Opens the standalone GET stream, unless it is open already; it is opened again after each renewal. */
export const start = (client: ClientState, renew: Renew): Effect.Effect<void> =>
  Effect.suspend(() => {
    client.listening = true
    return FiberMap.run(client.exchanges, listenerKey, listen(client, renew), { onlyIfMissing: true }).pipe(
      Effect.asVoid
    )
  })

/**
 * Resumes a cut answer stream with GET and `Last-Event-ID` until `done()` (true) or the schedule gives up (false);
 * fails with status 404 when the server no longer knows the session.
 */
export const resume = (client: ClientState, cursor: Cursor, done: () => boolean): Effect.Effect<boolean, Failed> =>
  Effect.gen(function*() {
    const driver = yield* Schedule.driver(client.reconnect)
    let failed = false
    while (!done()) {
      if (cursor.lastEventId === undefined) return false
      // After a connection the server closed on purpose, its `retry` is the whole wait; after a failed
      // attempt, the backoff schedule decides (and bounds the attempts).
      if (failed || cursor.retryMs === undefined) {
        const next = yield* Effect.either(driver.next(undefined))
        if (Either.isLeft(next)) return false
      }
      if (cursor.retryMs !== undefined) yield* Effect.sleep(Duration.millis(cursor.retryMs))
      failed = true
      const headers = yield* Outgoing.headersFor(client, undefined, true)
      const response = yield* Effect.either(Outgoing.execute(client, {
        method: "GET",
        url: client.url,
        headers: { ...headers, accept: "text/event-stream", "last-event-id": cursor.lastEventId }
      }))
      if (Either.isLeft(response)) continue
      if (response.right.status === 404 && client.sessionId !== undefined) {
        return yield* new Failed({ reason: "expired", status: 404 })
      }
      if (response.right.status < 200 || response.right.status >= 300) {
        return false
      }
      // A connection the server accepted resets the backoff (a polling server closes them on purpose).
      yield* driver.reset
      failed = false
      yield* Effect.either(Answer.read(client, response.right, cursor))
    }
    return true
  })
