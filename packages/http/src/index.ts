/**
 * @effect-mcp/http: Streamable HTTP for every era, server and client, on @effect/platform.
 */

/** Bearer token verification for the endpoint: JWT access tokens (JWKS) and RFC 7662 introspection. */
export * as BearerAuth from "./BearerAuth.js"

/** The event store behind resumable SSE streams. */
export * as EventStore from "./EventStore.js"

/** The Streamable HTTP client transport. */
export * as McpHttpClient from "./McpHttpClient.js"

/** The Streamable HTTP server endpoint. */
export * as McpHttpServer from "./McpHttpServer.js"

/** The Streamable HTTP server endpoint as a web-standard fetch handler (Workers, Bun, Deno, Hono). */
export * as McpWebHandler from "./McpWebHandler.js"

/** The Streamable HTTP server endpoint served straight on node:http. */
export * as McpNodeHttpServer from "./McpNodeHttpServer.js"

/** The Streamable HTTP client transport straight on node:http and node:https. */
export * as McpNodeHttpClient from "./McpNodeHttpClient.js"

/** Where the handshake sessions of a server on several processes live, for relaying requests to their owner. */
export * as SessionDirectory from "./SessionDirectory.js"
