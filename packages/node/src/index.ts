/**
 * @effect-mcp/node: the Node transports of effect-mcp — the stdio server transport.
 */


/** The stdio server transport (stdin and stdout of this process). */
export * as StdioServerTransport from "./StdioServerTransport.js"
