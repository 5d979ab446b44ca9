import { mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// The HTTP tests again, with the endpoint served by McpWebHandler (the fetch handler) behind a node:http bridge.
export default mergeConfig(shared("http-web"), { test: { env: { EFFECT_MCP_HTTP_ADAPTER: "web" } } })
