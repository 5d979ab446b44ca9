import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const dist = fileURLToPath(new URL("../dist/", import.meta.url))

/**
 * A copy of the bundle (the launcher and the server) alone in a fresh folder, far from any node_modules: it must need
 * nothing else. Its code cache goes into a `cache` folder of its own.
 */
const lonelyCopy = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-bundled-"))
    copyFileSync(join(dist, "server.mjs"), join(dir, "server.mjs"))
    copyFileSync(join(dist, "server.cjs"), join(dir, "server.cjs"))
    return dir
  }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Writes lines to a spawned copy of the bundle and resolves with the lines it answers, once it has `count`. */
const exchangeLines = (script: string, lines: ReadonlyArray<string>, count: number, cache: string) =>
  Effect.async<ReadonlyArray<string>>((resume) => {
    const child = spawn(process.execPath, [script], {
      stdio: ["pipe", "pipe", "ignore"],
      env: { ...process.env, EFFECT_MCP_CODE_CACHE: cache }
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const answers = out.split("\n").filter((line) => line !== "")
      if (answers.length >= count) {
        child.stdin.end()
        child.once("exit", () => resume(Effect.succeed(answers)))
      }
    })
    child.stdin.write(lines.map((line) => `${line}\n`).join(""))
    return Effect.sync(() => child.kill())
  })

describe("a server bundled with esbuild", () => {
  // it.live: the client's timers (the probe's bound) run on the real clock against a real process.
  it.live("serves from a folder with no node_modules: lists and calls its tool", () =>
    Effect.gen(function*() {
      const dir = yield* lonelyCopy
      const client = yield* Layer.build(
        McpClient.layer({ name: "bundled-test", version: "1.0.0" }).pipe(Layer.provide(
          StdioClientTransport.layer({
            command: process.execPath,
            args: [join(dir, "server.mjs")],
            cwd: dir,
            env: { EFFECT_MCP_CODE_CACHE: join(dir, "cache") },
            stderr: "ignore"
          })
        ))
      ).pipe(Effect.map(Context.get(McpClient.McpClient)))
      expect(client.serverInfo.name).toBe("echo")
      const tools = yield* client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(["echo"])
      expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["text"] })
      const result = yield* client.callTool("echo", { text: "bundled" })
      expect(result.content).toEqual([{ type: "text", text: "bundled" }])
      expect(result.isError).not.toBe(true)
    }).pipe(Effect.scoped))

  it.live("answers garbage as the unbundled server does, and keeps serving, before and after its code is cached", () =>
    Effect.gen(function*() {
      const dir = yield* lonelyCopy
      const cache = join(dir, "cache")
      const request = (id: number, method: string, params?: object) =>
        JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })
      const exchange = exchangeLines(
        join(dir, "server.mjs"),
        [
          request(1, "initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" }
          }),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          "{not json",
          request(2, "no/such/method"),
          request(3, "tools/call", { name: "echo", arguments: { text: 5 } }),
          request(4, "tools/call", { name: "echo", arguments: { text: "still here" } })
        ],
        5,
        cache
      )
      // The first run compiles the server and saves its code as it exits; the second starts from that cache.
      const first = yield* exchange
      expect(readdirSync(cache).filter((file) => file.startsWith("server.cjs-"))).toHaveLength(1)
      const answers = yield* exchange
      expect(answers).toEqual(first)
      const byId = new Map(
        answers.map((line) => JSON.parse(line) as { id: unknown; result?: unknown; error?: { code: number } })
          .map((answer) => [answer.id, answer])
      )
      expect(byId.get(null)?.error?.code).toBe(-32700)
      expect(byId.get(2)?.error?.code).toBe(-32601)
      expect(byId.get(3)?.result).toMatchObject({ isError: true })
      expect(byId.get(4)?.result).toEqual({ content: [{ type: "text", text: "still here" }] })
    }).pipe(Effect.scoped))

  it("leaves out what the server never uses: fast-check, and every HTTP module", () => {
    const meta = JSON.parse(readFileSync(join(dist, "server.meta.json"), "utf8")) as {
      readonly outputs: Readonly<
        Record<string, { readonly inputs: Readonly<Record<string, { readonly bytesInOutput: number }>> }>
      >
    }
    // The files that put code into the bundle (an input that tree-shaking emptied has 0 bytes in it).
    const inputs = Object.values(meta.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path)
    )
    expect(inputs.some((path) => path.includes("packages/core/"))).toBe(true)
    expect(inputs.some((path) => path.includes("node_modules/effect/"))).toBe(true)
    expect(inputs.filter((path) => /fast-check|pure-rand/.test(path))).toEqual([])
    expect(inputs.filter((path) => /packages\/http\/|@effect\/platform\/dist\/esm\/Http/.test(path))).toEqual([])
  })
})
