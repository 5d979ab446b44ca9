import { McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterAll, beforeAll } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import * as Suite from "./suite.js"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

// One real server process on 127.0.0.1 for the file; every revision connects its own client to it.
let child: ChildProcess | undefined
let url = ""

beforeAll(async () => {
  const started = spawn(process.execPath, [main, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
  child = started
  url = await new Promise<string>((resolve, reject) => {
    started.once("exit", (code) => reject(new Error(`the scenario server exited (${code}) before listening`)))
    createInterface({ input: started.stdout! }).on("line", (line) => {
      if (line.startsWith("LISTENING ")) resolve(line.slice("LISTENING ".length))
    })
  })
})

afterAll(() => {
  child?.kill("SIGTERM")
})

const connect = (endpoint: () => string, options: McpClient.Options) =>
  Layer.unwrapEffect(Effect.sync(() =>
    McpClient.layer(options).pipe(
      Layer.provide(McpHttpClient.layer({ url: endpoint() })),
      Layer.provide(NodeHttpClient.layerUndici)
    )
  ))

// Streamable HTTP: every revision that has it (2025-03-26 on), sessions or stateless.
Suite.run({
  label: "Streamable HTTP",
  revisions: [undefined, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
  client: (options) => connect(() => url, options)
})

// 2024-11-05 over HTTP is the deprecated HTTP+SSE transport, served at /sse beside /mcp.
Suite.run({
  label: "HTTP+SSE (deprecated)",
  revisions: ["2024-11-05"],
  client: (options) => connect(() => url.replace(/\/mcp$/, "/sse"), options)
})
