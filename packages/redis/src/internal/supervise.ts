/**
 * Keeps one ioredis client connected: connects it at start-up (retrying on the schedule for the start-up's time, then
 * failing with `RedisError`), and, in a fiber of the scope, connects it again on the schedule each time its
 * connection ends; closing the scope disconnects it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import { RedisError } from "../RedisConnection.js"

/** The client's connection ended (it was up before). */
const ended = (client: Redis): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (client.status === "end") return resume(Effect.void)
    const onEnd = () => resume(Effect.void)
    client.once("end", onEnd)
    return Effect.sync(() => void client.off("end", onEnd))
  })

/** Connects the client, then runs `onReady` (subscribing again, say). */
const connectOnce = (client: Redis, onReady: () => Promise<unknown>): Effect.Effect<void, RedisError> =>
  Effect.tryPromise({
    try: async () => {
      if (client.status !== "wait" && client.status !== "end") client.disconnect(false)
      await client.connect()
      await onReady()
    },
    catch: (cause) => new RedisError({ reason: "Redis is unreachable", cause })
  })

/** Connects the client and keeps it connected until the scope closes. */
export const supervise = (
  client: Redis,
  name: string,
  reconnect: Schedule.Schedule<unknown, unknown>,
  connectTimeout: Duration.DurationInput,
  onReady: () => Promise<unknown>
): Effect.Effect<void, RedisError, Scope.Scope> =>
  Effect.gen(function*() {
    // Failures reach the caller of each command; the events only say so again.
    client.on("error", () => {})
    yield* Effect.addFinalizer(() => Effect.sync(() => client.disconnect(false)))
    yield* Effect.retry(connectOnce(client, onReady), Schedule.upTo(reconnect, connectTimeout)).pipe(
      Effect.mapError((error) =>
        new RedisError({
          reason: `Redis was unreachable for ${Duration.format(connectTimeout)} at start-up`,
          cause: error.cause
        })
      )
    )
    const again = Effect.gen(function*() {
      yield* ended(client)
      yield* Effect.logWarning(`effect-mcp: the Redis ${name} connection ended; connecting again`)
      yield* Effect.retry(connectOnce(client, onReady), reconnect)
      yield* Effect.logInfo(`effect-mcp: the Redis ${name} connection is back`)
    })
    yield* Effect.forkScoped(Effect.forever(Effect.catchAllCause(again, (cause) =>
      Effect.logError(`effect-mcp: reconnecting the Redis ${name} connection failed`, cause))))
  })
