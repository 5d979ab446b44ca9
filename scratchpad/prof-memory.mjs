import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server, { name: "c", version: "1", ...(process.env.REV ? { revision: process.env.REV } : {}) }), scope))
const client = Context.get(context, McpClient.McpClient)
const t0 = Date.now()
for (let i = 0; i < 5000; i++) await Effect.runPromise(client.callTool("echo", { text: "hello" }))
console.log(Date.now() - t0, "ms")
process.exit(0)
