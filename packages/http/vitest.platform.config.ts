import { mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// The HTTP tests again, with the endpoint served by McpHttpServer.layer on @effect/platform's node server.
export default mergeConfig(shared("http-platform"), { test: { env: { EFFECT_MCP_HTTP_ADAPTER: "platform" } } })
