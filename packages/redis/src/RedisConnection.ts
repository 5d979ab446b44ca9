/**
 * The connection to Redis that the shared-state services use: one client for commands and one for subscriptions
 * (a subscribed Redis connection takes no other command), and the key prefix every key and channel starts with.
 *
 * Reconnection is ours, on a `Schedule`, not ioredis's: both clients are made with no retry strategy and no offline
 * queue, so that a command sent while Redis is away fails at once with `RedisError` (the request that needed it gets
 * an error, never a silent wait), and a fiber per client connects it again on the schedule. At start-up the layer
 * retries for `connectTimeout` and then fails with `RedisError`.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import { supervise } from "./internal/supervise.js"

/** Redis could not be reached, or refused a command. */
export class RedisError extends Data.TaggedError("RedisError")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  /** The reason, as the error's message. */
  override get message(): string {
    return this.reason
  }
}

/** Settings of the connection. */
export interface Options {
  /** The Redis URL (`redis://host:port/db`). */
  readonly url: string
  /** What every key and channel starts with, so that several servers share one Redis (default `effect-mcp:`). */
  readonly prefix?: string
  /** The delays between attempts to connect again (default: from 100 ms, doubling, at most 2 s apart). */
  readonly reconnect?: Schedule.Schedule<unknown, unknown>
  /** How long the start-up keeps trying before it fails with `RedisError` (default 10 s). */
  readonly connectTimeout?: Duration.DurationInput
  /** How long a command may take before it fails with `RedisError` (default 5 s). */
  readonly commandTimeout?: Duration.DurationInput
}

/** The connection the Redis services share. */
export interface RedisConnectionService {
  /** What every key and channel starts with. */
  readonly prefix: string
  /** Runs a command on the command client: a failure, a broken connection or a timeout is a `RedisError`. */
  readonly run: <A>(command: (client: Redis) => Promise<A>) => Effect.Effect<A, RedisError>
  /** The client that only subscribes (the event bus's). */
  readonly subscriber: Redis
  /** Called after the subscriber connected again, to subscribe again to what was subscribed. */
  readonly onSubscriberReady: (f: () => Promise<unknown>) => void
}

/** The connection to Redis. */
export class RedisConnection extends Context.Tag("@effect-mcp/redis/RedisConnection")<
  RedisConnection,
  RedisConnectionService
>() {}

/** The default reconnection schedule: from 100 ms, doubling, at most 2 s apart. */
export const defaultReconnect: Schedule.Schedule<unknown, unknown> = Schedule.exponential("100 millis").pipe(
  Schedule.modifyDelay((delay) => Duration.min(delay, Duration.seconds(2)))
)

const clientOf = (url: string): Redis =>
  new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    autoResubscribe: false,
    enableAutoPipelining: true
  })

/** Connects both clients (retrying for `connectTimeout`) and keeps them connected until the scope closes. */
export const make = (options: Options): Effect.Effect<RedisConnectionService, RedisError, Scope.Scope> =>
  Effect.gen(function*() {
    const reconnect = options.reconnect ?? defaultReconnect
    const connectTimeout = options.connectTimeout ?? Duration.seconds(10)
    const commandTimeout = options.commandTimeout ?? Duration.seconds(5)
    const commands = clientOf(options.url)
    const subscriber = clientOf(options.url)
    const resubscribe: Array<() => Promise<unknown>> = []
    yield* supervise(commands, "commands", reconnect, connectTimeout, () => Promise.resolve())
    yield* supervise(
      subscriber,
      "subscriber",
      reconnect,
      connectTimeout,
      () => Promise.all(resubscribe.map((f) => f()))
    )
    return {
      prefix: options.prefix ?? "effect-mcp:",
      run: <A>(command: (client: Redis) => Promise<A>) =>
        Effect.tryPromise({
          try: () => command(commands),
          catch: (cause) => new RedisError({ reason: `Redis refused a command or is unreachable`, cause })
        }).pipe(
          Effect.timeoutFail({
            duration: commandTimeout,
            onTimeout: () =>
              new RedisError({ reason: `Redis did not answer within ${Duration.format(commandTimeout)}` })
          })
        ),
      subscriber,
      onSubscriberReady: (f) => {
        resubscribe.push(f)
      }
    }
  })

/** The connection as a Layer. */
export const layer = (options: Options): Layer.Layer<RedisConnection, RedisError> =>
  Layer.scoped(RedisConnection, make(options))
