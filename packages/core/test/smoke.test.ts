import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const Echo = McpServer.tool({
  name: "echo",
  description: "Echoes its input",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

const Server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "test", version: "1.0.0" })))

describe("smoke", () => {
  it.scoped("echo over memory", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools()
      expect(tools.map((t) => t.name)).toEqual(["echo"])
      const result = yield* client.callTool("echo", { text: "hi" })
      expect(result.content).toEqual([{ type: "text", text: "hi" }])
    }).pipe(Effect.provide(McpTest.layer(Server))))
})
