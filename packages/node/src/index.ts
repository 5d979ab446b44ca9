/**
 * @effect-mcp/node: the Node transports of effect-mcp — the stdio server transport, and the stdio
 * client transport that spawns and supervises a server process.
 */

/** The stdio client transport (spawns the server as a child process). */
export * as StdioClientTransport from "./StdioClientTransport.js"

/** A stdio server process started ahead of the transport that adopts it (plain Node, for a launcher). */
export * as PrespawnedChild from "./PrespawnedChild.js"

/** The stdio server transport (stdin and stdout of this process). */
export * as StdioServerTransport from "./StdioServerTransport.js"

/** Runs a program bundled as one CommonJS file with V8's code cache, so that later starts skip compiling it. */
export * as CodeCache from "./CodeCache.js"
