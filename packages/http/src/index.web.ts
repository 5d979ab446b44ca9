/**
 * @effect-mcp/http for browsers and workers: everything in the package but the node:http adapters, so that a bundle
 * for a browser, a Cloudflare Worker or any fetch-only runtime imports no `node:*` module. The package's `browser`,
 * `worker` and `workerd` export conditions resolve `@effect-mcp/http` to this module; `index.ts` adds the node:http
 * adapters to it.
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

/** Where the handshake sessions of a server on several processes live, for relaying requests to their owner. */
export * as SessionDirectory from "./SessionDirectory.js"
