/**
 * The event bus of a server that runs as several processes: a message published on a topic reaches every subscriber
 * of that topic in every process of the server, the publisher's own process included. A server needs none while it
 * is one process (its list changes and resource updates go straight to its own connections); with one in context,
 * `McpServer.make` also carries them to the other processes. `layerMemory` is a bus inside one process (several
 * servers of one process, tests); `@effect-mcp/redis` provides one over Redis.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/** A message the bus could not publish (its backend is unreachable). */
export class EventBusError extends Data.TaggedError("EventBusError")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  /** The reason, as the error's message. */
  override get message(): string {
    return this.reason
  }
}

/** A bus of text messages by topic. */
export interface EventBusService {
  /** Publishes a message to every subscriber of the topic, in every process. */
  readonly publish: (topic: string, message: string) => Effect.Effect<void, EventBusError>
  /**
   * The messages of a topic from now until the scope closes. A subscription outlives a broken connection to the
   * backend: the bus subscribes again when it is back (what was published meanwhile is lost).
   */
  readonly subscribe: (topic: string) => Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}

/** The event bus the processes of one server share. */
export class EventBus extends Context.Tag("@effect-mcp/core/EventBus")<EventBus, EventBusService>() {}

/** A bus inside one process: a PubSub per topic, made with its first subscriber. */
export const makeMemory = (): EventBusService => {
  const topics = new Map<string, PubSub.PubSub<string>>()
  // Two first subscribers at once subscribe to the one hub that was kept.
  const hub = (topic: string): Effect.Effect<PubSub.PubSub<string>> => {
    const found = topics.get(topic)
    return found !== undefined ? Effect.succeed(found) : Effect.map(PubSub.unbounded<string>(), (made) => {
      const kept = topics.get(topic) ?? made
      topics.set(topic, kept)
      return kept
    })
  }
  return {
    publish: (topic, message) =>
      Effect.suspend(() => {
        const found = topics.get(topic)
        return found === undefined ? Effect.void : Effect.asVoid(PubSub.publish(found, message))
      }),
    subscribe: (topic) => Effect.flatMap(Effect.suspend(() => hub(topic)), PubSub.subscribe)
  }
}

/** The in-process bus as a Layer. */
export const layerMemory: Layer.Layer<EventBus> = Layer.sync(EventBus, makeMemory)
