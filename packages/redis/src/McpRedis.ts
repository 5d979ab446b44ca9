/**
 * The one Layer that switches a server from in-memory state to Redis: provide it under `McpServer.layer` and the HTTP
 * endpoint, and every process started with the same URL and prefix serves as one server. It provides the event bus
 * (list changes and resource updates to every process), the task store, the `requestState` key ring, the SSE
 * event store and the directory of handshake sessions (requests for a session are relayed to the process that owns
 * it), all over one connection.
 */
import type { EventBus, RequestStateKeys, TaskStore } from "@effect-mcp/core"
import type { EventStore, SessionDirectory } from "@effect-mcp/http"
import * as Layer from "effect/Layer"
import * as RedisConnection from "./RedisConnection.js"
import * as RedisEventBus from "./RedisEventBus.js"
import * as RedisEventStore from "./RedisEventStore.js"
import * as RedisRequestStateKeys from "./RedisRequestStateKeys.js"
import * as RedisSessionDirectory from "./RedisSessionDirectory.js"
import * as RedisTaskStore from "./RedisTaskStore.js"

/** Settings of the shared state: the connection's, and each service's. */
export interface Options extends RedisConnection.Options {
  /** The task store's settings (poll interval, longest ttl, heartbeat). */
  readonly tasks?: RedisTaskStore.Options
  /** The key ring's rotation. */
  readonly requestState?: RedisRequestStateKeys.Options
  /** The SSE event store's bounds. */
  readonly events?: RedisEventStore.Options
  /** The handshake sessions' directory. */
  readonly sessions?: RedisSessionDirectory.Options
}

/** Every shared-state service a server and its HTTP endpoint read. */
export type Services =
  | EventBus.EventBus
  | TaskStore.TaskStore
  | RequestStateKeys.RequestStateKeys
  | EventStore.EventStore
  | SessionDirectory.SessionDirectory

/** A server's shared state on Redis; fails with `RedisError` when Redis stays unreachable at start-up. */
export const layer = (options: Options): Layer.Layer<Services, RedisConnection.RedisError> => {
  const bus = RedisEventBus.layer
  return Layer.mergeAll(
    bus,
    RedisTaskStore.layer(options.tasks).pipe(Layer.provide(bus)),
    RedisRequestStateKeys.layer(options.requestState),
    RedisEventStore.layer(options.events),
    RedisSessionDirectory.layer(options.sessions)
  ).pipe(Layer.provide(RedisConnection.layer(options)))
}
