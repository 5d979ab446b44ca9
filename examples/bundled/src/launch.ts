/**
 * The bundled server's entry (`dist/server.mjs`): runs the server, bundled as one CommonJS file (`dist/server.cjs`),
 * with V8's code cache, so that every start after the first skips compiling it (docs/bundling.md).
 */
import * as CodeCache from "@effect-mcp/node/CodeCache"

CodeCache.run(new URL("./server.cjs", import.meta.url))
