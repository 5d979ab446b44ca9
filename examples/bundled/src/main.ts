/**
 * An echo server over stdio, written as the README shows. `scripts/bundle.mjs` bundles it into one file,
 * `dist/server.mjs`, which starts in about half the time (docs/bundling.md).
 */
import { McpServer } from "@effect-mcp/core"
import { StdioServerTransport } from "@effect-mcp/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const Echo = McpServer.tool({
  name: "echo",
  description: "Echoes its text back",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

const Server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "echo", version: "1.0.0" })))

StdioServerTransport.runServer(Server)
