import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { FiberRuntime } from "../node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberRuntime.js"
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(McpTest.layer(server, { name: "c", version: "1", revision: "2025-11-25" }), scope))
const client = Context.get(context, McpClient.McpClient)
for (let i = 0; i < 100; i++) await Effect.runPromise(client.callTool("echo", { text: "hello" }))
const counts = new Map()
const orig = FiberRuntime.prototype.tell
FiberRuntime.prototype.tell = function (message) { const k = message._tag + " " + (new Error().stack.split("\n").slice(2, 6).map((l) => l.trim().replace(/.*\//, "")).join(" < ")); counts.set(k, (counts.get(k) ?? 0) + 1); return orig.call(this, message) }
for (let i = 0; i < 1000; i++) await Effect.runPromise(client.callTool("echo", { text: "hello" }))
for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(n, k)
process.exit(0)
