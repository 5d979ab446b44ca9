/**
 * @effect-mcp/redis: the shared state of a server on Redis, so that several processes serve as one server.
 */

/** The one Layer that puts a server's shared state on Redis. */
export * as McpRedis from "./McpRedis.js"

/** The connection to Redis, its reconnection and its errors. */
export * as RedisConnection from "./RedisConnection.js"

/** The event bus over Redis publish/subscribe. */
export * as RedisEventBus from "./RedisEventBus.js"

/** The SSE event store over Redis lists. */
export * as RedisEventStore from "./RedisEventStore.js"

/** The requestState key ring in Redis. */
export * as RedisRequestStateKeys from "./RedisRequestStateKeys.js"

/** The directory of handshake sessions in Redis. */
export * as RedisSessionDirectory from "./RedisSessionDirectory.js"

/** The task store over Redis. */
export * as RedisTaskStore from "./RedisTaskStore.js"
