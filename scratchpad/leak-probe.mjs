// Drives examples/everything --http (wrapped by heap-wrapper.mjs) with sequential calls from our client in one era
// (REV, default 2026-07-28) and prints the server's heap after GC as it goes.
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, ["--expose-gc", "scratchpad/heap-wrapper.mjs", "--http"], { stdio: ["ignore", "pipe", "pipe"] })
createInterface({ input: child.stderr }).on("line", (l) => l.startsWith("HEAP") && (globalThis.lastHeap = l))
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision: process.env.REV ?? "2026-07-28" })).pipe(Layer.provide(McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici)))), scope))
const client = Context.get(context, McpClient.McpClient)
// MIX=1: the soak's mix of operations (lists, reads, prompts, progress, tool errors, timeouts); else echo only.
const only = { progress: () => client.callTool("test_tool_with_progress", {}, { onProgress: () => undefined }), timeout: () => client.callTool("test_tool_with_progress", {}, { timeout: "20 millis", resetTimeoutOnProgress: false }), error: () => client.callTool("test_error_handling", {}), list: () => client.listTools() }[process.env.OP]
const op = (r) => only !== undefined ? only() : process.env.MIX === undefined || r < 0.6 ? client.callTool("echo", { text: "hello" })
  : r < 0.7 ? client.listTools() : r < 0.78 ? client.readResource("test://static-text") : r < 0.85 ? client.getPrompt("test_simple_prompt")
  : r < 0.9 ? client.callTool("test_tool_with_progress", {}, { onProgress: () => undefined }) : r < 0.95 ? client.callTool("test_error_handling", {})
  : client.callTool("test_tool_with_progress", {}, { timeout: "20 millis", resetTimeoutOnProgress: false })
for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
  await Promise.all(Array.from({ length: 16 }, async () => { for (let i = 0; i < 300; i++) await Effect.runPromise(Effect.ignore(op(Math.random()))) }))
  await new Promise((r) => setTimeout(r, 1500))
  console.log(`after ${(round + 1) * 4800} calls: ${globalThis.lastHeap}`)
}
child.kill("SIGKILL"); process.exit(0)
