/**
 * @effect-mcp/http: Streamable HTTP for every era, server and client, on @effect/platform. Browsers and workers get
 * `index.web.ts` instead (the same without the node:http adapters), by the package's export conditions.
 */

export * from "./index.web.js"

/** The Streamable HTTP server endpoint served straight on node:http. */
export * as McpNodeHttpServer from "./McpNodeHttpServer.js"

/** The Streamable HTTP client transport straight on node:http and node:https. */
export * as McpNodeHttpClient from "./McpNodeHttpClient.js"
