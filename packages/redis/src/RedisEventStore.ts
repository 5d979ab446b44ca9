/**
 * The http `EventStore` over Redis, so that a stream's events outlive the process that wrote them: each stream is a
 * list `<prefix>events:<session>:<stream>` of `{ seq, message }` JSON, bounded to its newest events, and the set
 * `<prefix>events:<session>` names a session's streams for `forget`. Every append moves both expiries on by `ttl`,
 * so the events of a session that ended without saying so (its process died) go away by themselves.
 */
import { EventStore } from "@effect-mcp/http"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { RedisConnection, type RedisConnectionService, RedisError } from "./RedisConnection.js"

/** Settings of the store. */
export interface Options {
  /** Events kept per stream; older ones are dropped (default 1,000). */
  readonly maxEventsPerStream?: number
  /** How long a session's events are kept after its last one (default 1 hour). */
  readonly ttl?: Duration.DurationInput
}

const Stored = Schema.parseJson(Schema.Struct({ seq: Schema.Number, message: Schema.Unknown }))
const decodeStored = Schema.decodeUnknownEither(Stored)
const encodeStored = Schema.encodeSync(Stored)

const storeError = (error: RedisError) => new EventStore.EventStoreError({ reason: error.reason, cause: error })

/** Makes the store over a connection. */
export const make = (connection: RedisConnectionService, options: Options = {}): EventStore.EventStoreService => {
  const max = Math.max(1, options.maxEventsPerStream ?? 1000)
  const ttl = Duration.toMillis(options.ttl ?? Duration.hours(1))
  const sessionKey = (sessionId: string) => `${connection.prefix}events:${sessionId}`
  const streamKey = (sessionId: string, streamId: string) => `${connection.prefix}events:${sessionId}:${streamId}`
  return {
    append: (sessionId, streamId, seq, message) =>
      Effect.mapError(
        Effect.flatMap(
          connection.run((client) =>
            client.multi()
              .rpush(streamKey(sessionId, streamId), encodeStored({ seq, message }))
              .ltrim(streamKey(sessionId, streamId), -max, -1)
              .pexpire(streamKey(sessionId, streamId), ttl)
              .sadd(sessionKey(sessionId), streamId)
              .pexpire(sessionKey(sessionId), ttl)
              .exec()
          ),
          (results) => {
            const failed = results?.find(([error]) => error !== null)
            return results === null || failed !== undefined
              ? Effect.fail(new RedisError({ reason: "Redis refused to keep an event", cause: failed?.[0] }))
              : Effect.void
          }
        ),
        storeError
      ),
    after: (sessionId, streamId, seq) =>
      Effect.mapError(
        Effect.flatMap(connection.run((client) => client.lrange(streamKey(sessionId, streamId), 0, -1)), (items) => {
          const events: Array<EventStore.StoredEvent> = []
          let skipped = 0
          for (const item of items) {
            const decoded = decodeStored(item)
            if (Either.isLeft(decoded)) skipped++
            else if (decoded.right.seq > seq) events.push(decoded.right)
          }
          return skipped === 0
            ? Effect.succeed(events)
            : Effect.as(Effect.logWarning(`effect-mcp: skipped ${skipped} stored events that do not decode`), events)
        }),
        storeError
      ),
    forget: (sessionId) =>
      Effect.mapError(
        Effect.flatMap(connection.run((client) => client.smembers(sessionKey(sessionId))), (streams) =>
          connection.run((client) =>
            client.del(
              sessionKey(sessionId),
              ...streams.map((streamId) =>
                streamKey(sessionId, streamId)
              )
            )
          )),
        storeError
      )
  }
}

/** The store over the connection in context. */
export const layer = (options: Options = {}): Layer.Layer<EventStore.EventStore, never, RedisConnection> =>
  Layer.effect(EventStore.EventStore, Effect.map(RedisConnection, (c) => make(c, options)))
