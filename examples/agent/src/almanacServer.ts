/** The almanac (an `@effect/ai` Toolkit) served as an MCP server over stdin/stdout. Logs go to stderr. */
import { StdioServerTransport } from "@effect-mcp/node"
import * as Almanac from "./Almanac.js"

StdioServerTransport.runServer(Almanac.server)
