// Counts the Effect operations our HTTP client (McpNodeHttpClient, the transports benchmark's client) runs per
// tools/call against examples/everything --http in a child process: by op kind and by the source of each op's
// continuation (scratchpad/census.mjs). REV=2026-07-28 for stateless requests. TOP=n shows more sources.
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { makeCensus } from "./census.mjs"

const child = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "ignore"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const { state, supervised, report } = makeCensus()
const scope = Effect.runSync(Scope.make())
const revision = process.env.REV ?? "2025-11-25"
const context = await Effect.runPromise(supervised(Layer.buildWithScope(
  Layer.scoped(McpClient.McpClient, McpClient.make({ name: "c", version: "1", revision })).pipe(Layer.provide(McpNodeHttpClient.layer({ url }))),
  scope
)))
const client = Context.get(context, McpClient.McpClient)
const call = () => Effect.runPromise(supervised(client.callTool("echo", { text: "hello" })))
for (let i = 0; i < 1000; i++) await call()
const N = 500
state.counting = true
for (let i = 0; i < N; i++) await call()
state.counting = false
report(N)
child.kill("SIGKILL")
process.exit(0)
