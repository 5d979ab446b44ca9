import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
const pinned = process.argv[2]
const child = spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/prof", "/work/main/examples/scenarios/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((r) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && r(l.slice(10))))
const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: 2000 }, (_, i) => i), (i) => client.callTool("echo", { text: `c${i}` }), { concurrency: 64 })
  console.log(pinned ?? "2026", "2000 calls ms", Math.round(performance.now() - t0))
}).pipe(Effect.provide(McpClient.layer({ name: "p", version: "1", ...(pinned ? { revision: pinned } : {}) }).pipe(Layer.provide(McpHttpClient.layer({ url })), Layer.provide(NodeHttpClient.layerUndici))))
await Effect.runPromise(Effect.scoped(program))
child.kill("SIGINT")
await new Promise((r) => child.once("exit", r))
