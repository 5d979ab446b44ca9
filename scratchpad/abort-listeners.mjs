// Makes N sequential calls over Streamable HTTP (2025-11-25 session) with one client, against
// examples/everything --http, and prints any MaxListeners warning with its stack. WHO=ours|v1 picks the client.
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
process.on("warning", (w) => console.error("WARNING", w.name, w.message, "\n", w.stack?.split("\n").slice(1, 12).join("\n")))
const child = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "ignore"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const N = Number(process.env.N ?? 3000)
let call
if ((process.env.WHO ?? "ours") === "ours") {
  const scope = Effect.runSync(Scope.make())
  const ctx = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision: "2025-11-25" })).pipe(Layer.provide(McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici)))), scope))
  const client = Context.get(ctx, McpClient.McpClient)
  call = () => Effect.runPromise(client.callTool("echo", { text: "hi" }))
} else {
  const client = new Client({ name: "p", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  call = () => client.callTool({ name: "echo", arguments: { text: "hi" } })
}
for (let i = 0; i < N; i++) await call()
console.log("done", N)
child.kill("SIGKILL")
process.exit(0)
