/** @effect-mcp/host: a supervised MCP host — many servers kept alive and presented as one catalogue. */
export {}
