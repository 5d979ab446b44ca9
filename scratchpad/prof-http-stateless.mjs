// Profiles the HTTP server (examples/everything --http) under sequential 2026-07-28 echo calls from our client,
// to /tmp/hprof/*.cpuprofile.
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, [...(process.env.NOPROF ? [] : ["--cpu-prof", "--cpu-prof-dir=/tmp/hprof"]), "examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(Layer.scoped(McpClient.McpClient, McpClient.make({ name: "p", version: "1", revision: "2026-07-28" })).pipe(Layer.provide(McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici)))), scope))
const client = Context.get(context, McpClient.McpClient)
const N = Number(process.env.N ?? 3000)
const t0 = performance.now()
for (let i = 0; i < N; i++) await Effect.runPromise(client.callTool("echo", { text: "hello" }))
console.log(`${(N / (performance.now() - t0) * 1000).toFixed(0)} calls/s, client CPU ${(process.cpuUsage().user / 1000).toFixed(0)} ms total`)
await Effect.runPromise(Scope.close(scope, Exit.void))
child.kill("SIGINT")
await new Promise((ok) => child.on("exit", ok))
process.exit(0)
