// Counts the Effect operations one in-memory tools/call runs (client and server fibers together), by op kind and by
// the source of the continuation or thunk each carries: where the per-call interpreter work (and garbage) comes from.
// REV=2025-11-25 picks a handshake revision; TOP=n shows more sources.
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { makeCensus } from "./census.mjs"

const { state, supervised, report } = makeCensus()
const Echo = McpServer.tool({ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" })))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(supervised(Layer.buildWithScope(McpTest.layer(server, { name: "c", version: "1", ...(process.env.REV ? { revision: process.env.REV } : {}) }), scope)))
const client = Context.get(context, McpClient.McpClient)
for (let i = 0; i < 100; i++) await Effect.runPromise(supervised(client.callTool("echo", { text: "hello" })))
const N = 1000
state.counting = true
for (let i = 0; i < N; i++) await Effect.runPromise(supervised(client.callTool("echo", { text: "hello" })))
state.counting = false
report(N)
process.exit(0)
