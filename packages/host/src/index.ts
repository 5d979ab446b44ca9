/** @effect-mcp/host: a supervised MCP host: many servers kept alive and presented as one catalogue. */
export * as HostConfig from "./HostConfig.js"
export * as HostError from "./HostError.js"
export * as HostEvent from "./HostEvent.js"
export * as McpHost from "./McpHost.js"
