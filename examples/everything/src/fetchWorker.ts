/**
 * The everything server as a fetch handler: the module that `scripts/bundle-worker.mjs` bundles into
 * `dist/worker.js`, whose default export `{ fetch }` is the form that workerd (Cloudflare Workers), `Bun.serve` and
 * `Deno.serve` all take. The endpoint is `/mcp`; its server and sessions are made on the first request (workerd
 * forbids timers and random values at a module's top level) and live as long as the runtime keeps the module.
 */
import * as McpWebHandler from "@effect-mcp/http/McpWebHandler"
import * as Everything from "./Everything.js"

const handler = McpWebHandler.toFetch(Everything.layer)

/** The worker: one `fetch` for every request. */
export default {
  fetch: (request: Request): Promise<Response> => handler.fetch(request)
}
