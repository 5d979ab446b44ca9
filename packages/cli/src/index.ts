/** @effect-mcp/cli: the effect-mcp command. */
export {}
