/**
 * The http `SessionDirectory` over Redis: `<prefix>session:<id>` holds the origin of the process that owns a
 * handshake session, for as long as the session lives (and at most `ttl`, so that the entries of a process that died
 * go away by themselves). Only an id made of letters, digits, `-` and `_` (at most 128) names a key: any other names no
 * session, and never reaches Redis.
 */
import { SessionDirectory } from "@effect-mcp/http"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RedisConnection, type RedisConnectionService, type RedisError } from "./RedisConnection.js"

/** Settings of the directory. */
export interface Options {
  /** The longest an entry is kept (default 24 hours). */
  readonly ttl?: Duration.DurationInput
}

const directoryError = (error: RedisError) =>
  new SessionDirectory.SessionDirectoryError({ reason: error.reason, cause: error })

/** Whether a session id may name a key: letters, digits, `-` and `_`, 1 to 128 of them. */
const isKeyable = (sessionId: string): boolean => /^[\w-]{1,128}$/.test(sessionId)

/** Makes the directory over a connection. */
export const make = (
  connection: RedisConnectionService,
  options: Options = {}
): SessionDirectory.SessionDirectoryService => {
  const ttl = Duration.toMillis(options.ttl ?? Duration.hours(24))
  const key = (sessionId: string) => `${connection.prefix}session:${sessionId}`
  let self: string | undefined
  const refused = (sessionId: string) =>
    new SessionDirectory.SessionDirectoryError({
      reason: `A session id must be 1 to 128 letters, digits, - or _ (got ${sessionId.length} characters)`
    })
  return {
    advertise: (origin) =>
      Effect.sync(() => {
        self = origin
      }),
    claim: (sessionId) =>
      !isKeyable(sessionId) ? Effect.fail(refused(sessionId)) : Effect.suspend(() =>
        self === undefined
          ? Effect.void
          : Effect.asVoid(connection.run((c) => c.set(key(sessionId), self!, "PX", ttl)))
      ).pipe(Effect.mapError(directoryError)),
    owner: (sessionId) =>
      !isKeyable(sessionId) ? Effect.succeed(undefined) : Effect.map(
        Effect.mapError(connection.run((c) => c.get(key(sessionId))), directoryError),
        (origin) => origin === null || origin === self ? undefined : origin
      ),
    release: (sessionId) =>
      !isKeyable(sessionId)
        ? Effect.void
        : Effect.mapError(Effect.asVoid(connection.run((c) => c.del(key(sessionId)))), directoryError)
  }
}

/** The directory over the connection in context. */
export const layer = (
  options: Options = {}
): Layer.Layer<SessionDirectory.SessionDirectory, never, RedisConnection> =>
  Layer.effect(SessionDirectory.SessionDirectory, Effect.map(RedisConnection, (c) => make(c, options)))
