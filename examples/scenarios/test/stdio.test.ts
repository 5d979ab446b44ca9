import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import * as Layer from "effect/Layer"
import { fileURLToPath } from "node:url"
import * as Suite from "./suite.js"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

// One real child process per revision: the built scenario server on stdin/stdout.
Suite.run({
  label: "stdio",
  revisions: [undefined, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
  client: (options) =>
    McpClient.layer(options).pipe(
      Layer.provide(
        StdioClientTransport.layer({ command: process.execPath, args: [main, "--stdio"], stderr: "ignore" })
      )
    )
})
