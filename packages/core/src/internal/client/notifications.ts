/**
 * The server's notifications as Streams: one hub per connection, made for its first reader (until then a
 * notification has no reader and is dropped, as a hub without subscribers would drop it), the per-method Streams
 * built on first use, and the 2026-07-28 `subscriptions/listen` stream.
 */
import { Json, type JsonRpc, type Mcp, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import type { McpClientError } from "../../McpClient.js"
import type * as Engine from "../engine.js"
import { metaKeys, type MetaSource, statelessMeta } from "./statelessMeta.js"

/** Where a client keeps its notification hub and the Streams built over it (each made on first use). */
export interface NotificationSource {
  hub: PubSub.PubSub<JsonRpc.Notification> | undefined
  streams: Record<string, Stream.Stream<unknown>> | undefined
}

/**
 * The connection's notification hub, made for its first reader: a hub per connection made up front is heap paid by
 * every client that never reads one (docs/benchmarks.md, "in-memory heap per live client+server pair" rows).
 */
export const notificationHub = (source: NotificationSource): Effect.Effect<PubSub.PubSub<JsonRpc.Notification>> =>
  Effect.suspend(() =>
    source.hub === undefined
      ? Effect.map(PubSub.unbounded<JsonRpc.Notification>(), (made) => (source.hub ??= made))
      : Effect.succeed(source.hub)
  )

/** Hands a notification to the hub's readers (dropped while there is no hub: no one reads). */
export const publish = (source: NotificationSource, notification: JsonRpc.Notification): Effect.Effect<void> =>
  source.hub === undefined ? Effect.void : Effect.asVoid(PubSub.publish(source.hub, notification))

/** The notifications of one method, from a client's hub. */
const byMethod = (hub: PubSub.PubSub<JsonRpc.Notification>, method: string) =>
  Stream.fromPubSub(hub).pipe(Stream.filter((n) => n.method === method))

/** The Stream kept under `key`, built on first use over the hub (made when a Stream first runs). */
const stream = <A>(
  source: NotificationSource,
  key: string,
  make: (hub: PubSub.PubSub<JsonRpc.Notification>) => Stream.Stream<A>
): Stream.Stream<A> => {
  const streams = (source.streams ??= {})
  const kept = (streams[key] ??= Stream.unwrap(Effect.map(notificationHub(source), make)))
  return kept as Stream.Stream<A>
}

/** A getter of an enumerable own property (see {@link streamProperties}). */
const getter = <A>(read: (source: NotificationSource) => A): PropertyDescriptor => ({
  enumerable: true,
  get(this: NotificationSource) {
    return read(this)
  }
})

/**
 * The client's Streams of notifications, as accessor properties to define on each client: built on first use (eager
 * Stream values cost about 28 KB a connection, which a host with many servers would pay for streams it never reads),
 * own and enumerable so that a spread of the client (`{ ...client, callTool }`) copies them.
 */
export const streamProperties: PropertyDescriptorMap = {
  notifications: getter((source) => stream(source, "all", (hub) => Stream.fromPubSub(hub))),
  toolListChanged: getter((source) =>
    stream(source, "tools", (hub) => Stream.as(byMethod(hub, "notifications/tools/list_changed"), undefined))
  ),
  resourceListChanged: getter((source) =>
    stream(source, "resources", (hub) => Stream.as(byMethod(hub, "notifications/resources/list_changed"), undefined))
  ),
  promptListChanged: getter((source) =>
    stream(source, "prompts", (hub) => Stream.as(byMethod(hub, "notifications/prompts/list_changed"), undefined))
  ),
  resourceUpdated: getter((source) =>
    stream(
      source,
      "updated",
      (hub) => byMethod(hub, "notifications/resources/updated").pipe(Stream.map((n) => String(n.params?.uri)))
    )
  ),
  logMessages: getter((source) =>
    stream(
      source,
      "log",
      (hub) =>
        byMethod(hub, "notifications/message").pipe(
          Stream.map((n) => n.params as unknown as Mcp.LoggingMessageNotificationParams)
        )
    )
  )
}

/** What `subscriptions/listen` needs of the client. */
export interface ListenClient extends NotificationSource, MetaSource {
  readonly engine: Engine.Engine
  readonly revision: Revision.Revision
}

/** Opens a `subscriptions/listen` stream (2026-07-28): the notifications tagged with its subscription id. */
export const listen = (
  client: ListenClient,
  filter: Mcp.SubscriptionFilter
): Stream.Stream<JsonRpc.Notification, McpClientError> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      const queue = yield* PubSub.subscribe(yield* notificationHub(client))
      let id: JsonRpc.RequestId | undefined
      const call = yield* Effect.forkScoped(
        client.engine.request("subscriptions/listen", {
          notifications: filter,
          _meta: statelessMeta(client, client.revision)
        }, {
          onId: (i) => {
            id = i
          },
          timeout: "365 days"
        })
      )
      const ours = Stream.fromQueue(queue).pipe(
        Stream.filter((n) => id !== undefined && Json.record(n.params?._meta)[metaKeys.subscriptionId] === id)
      )
      const ended = Stream.fromEffect(Effect.asVoid(Effect.either(call.await))).pipe(Stream.drain)
      return Stream.merge(ours, ended, { haltStrategy: "either" })
    })
  )
