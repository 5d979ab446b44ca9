/**
 * `EventBus` over Redis publish/subscribe: a topic is the channel `<prefix>bus:<topic>`. The subscriber client
 * subscribes to a channel with the topic's first local subscriber and hands each message to a local PubSub, from
 * which every local subscriber reads; after a reconnection it subscribes to every channel again (messages published
 * while it was away are lost, as the bus says).
 */
import { EventBus } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Runtime from "effect/Runtime"
import { RedisConnection, type RedisConnectionService } from "./RedisConnection.js"

/** Makes the bus over a connection. */
export const make = (connection: RedisConnectionService): Effect.Effect<EventBus.EventBusService> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const publishLocally = Runtime.runSync(runtime)
    const channelOf = (topic: string) => `${connection.prefix}bus:${topic}`
    const hubs = new Map<string, PubSub.PubSub<string>>()
    connection.subscriber.on("message", (channel: string, message: string) => {
      const hub = hubs.get(channel)
      if (hub !== undefined) publishLocally(PubSub.publish(hub, message))
    })
    connection.onSubscriberReady(() =>
      hubs.size === 0 ? Promise.resolve() : connection.subscriber.subscribe(...hubs.keys())
    )
    /** The local hub of a channel, subscribed to on Redis when it is made. */
    const hub = (channel: string): Effect.Effect<PubSub.PubSub<string>> => {
      const found = hubs.get(channel)
      if (found !== undefined) return Effect.succeed(found)
      return Effect.flatMap(PubSub.unbounded<string>(), (made) => {
        const kept = hubs.get(channel)
        if (kept !== undefined) return Effect.succeed(kept)
        hubs.set(channel, made)
        // Subscribed on Redis now, or, while Redis is away, when the subscriber connects again.
        return Effect.as(
          Effect.catchAll(
            Effect.tryPromise(() => connection.subscriber.subscribe(channel)),
            (error) => Effect.logWarning(`effect-mcp: subscribing to ${channel} waits for Redis to come back`, error)
          ),
          made
        )
      })
    }
    return {
      publish: (topic, message) =>
        Effect.mapError(
          connection.run((client) => client.publish(channelOf(topic), message)),
          (error) => new EventBus.EventBusError({ reason: error.reason, cause: error })
        ),
      subscribe: (topic) => Effect.flatMap(hub(channelOf(topic)), PubSub.subscribe)
    }
  })

/** The bus over the connection in context. */
export const layer: Layer.Layer<EventBus.EventBus, never, RedisConnection> = Layer.effect(
  EventBus.EventBus,
  Effect.flatMap(RedisConnection, make)
)
