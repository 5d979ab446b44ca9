/**
 * Hostile peers over real stdio child processes: a client that sends values nested thousands of levels deep into
 * every field of the everything server, and a server that answers our client with one. Neither side crashes,
 * every request gets its one answer, and the connection serves on.
 */
import { McpClient, McpServer, Transport } from "@effect-mcp/core"
import { StdioClientTransport, StdioServerTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { PassThrough } from "node:stream"
import { fileURLToPath } from "node:url"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const deepServer = fileURLToPath(new URL("./fixtures/deepServer.mjs", import.meta.url))

/** JSON text of an array nested `depth` levels deep (built as text: no JS value that deep is ever made). */
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** A child process of the everything server over stdio, driven line by line. */
const everythingChild = Effect.acquireRelease(
  Effect.sync(() => {
    const child = spawn(process.execPath, [everything, "--stdio"], { stdio: ["pipe", "pipe", "ignore"] })
    const lines: Array<string> = []
    const waiting: Array<(line: string) => void> = []
    createInterface({ input: child.stdout }).on("line", (line) => {
      const w = waiting.shift()
      if (w === undefined) lines.push(line)
      else w(line)
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    return {
      child,
      exited,
      write: (text: string) => Effect.sync(() => child.stdin.write(`${text}\n`)),
      next: Effect.promise(() =>
        new Promise<any>((resolve) => {
          const line = lines.shift()
          if (line !== undefined) resolve(JSON.parse(line))
          else waiting.push((l) => resolve(JSON.parse(l)))
        })
      )
    }
  }),
  ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
)

describe("a hostile client against a real stdio server", () => {
  it.scopedLive("values 5,000 and 200,000 levels deep in every field: each request answered with its id", () =>
    Effect.gen(function*() {
      const server = yield* everythingChild
      yield* server.write(JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      }))
      expect((yield* server.next).result.serverInfo.name).toBe("effect-mcp-everything")
      yield* server.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      const frames: ReadonlyArray<(v: string, id: number) => string> = [
        (v, id) =>
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":${v}}}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${v}}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"cursor":${v}}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"resources/read","params":{"uri":${v}}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"prompts/get","params":{"name":${v}}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":${v}}`,
        (v, id) => `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"_meta":${v}}}`
      ]
      let id = 0
      for (const depth of [5_000, 200_000]) {
        for (const frame of frames) {
          yield* server.write(frame(deep(depth), ++id))
          const answer = yield* server.next
          expect(answer, frame("…", id)).toMatchObject({ id, error: { code: expect.any(Number) } })
          expect([-32600, -32602]).toContain(answer.error.code)
          // The id was released: the same id is free again at once.
          yield* server.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)
          expect(yield* server.next).toEqual({ jsonrpc: "2.0", id, result: {} })
        }
      }
      yield* server.write(`{"jsonrpc":"2.0","id":${deep(5_000)},"method":"ping"}`)
      expect(yield* server.next).toMatchObject({ id: null, error: { code: -32600 } })
      yield* server.write(
        `{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`
      )
      expect(yield* server.next).toMatchObject({ id: "last", result: { content: [{ type: "text" }] } })
      server.child.stdin.end()
      expect(yield* Effect.promise(() => server.exited)).toBe(0)
    }))
})

describe("a hostile server against our stdio client", () => {
  it.scopedLive("a result 5,000 levels deep fails the call at once with a TransportError; the next call works", () =>
    Effect.gen(function*() {
      const layer = McpClient.layer({ name: "c", version: "1", revision: "2025-06-18", requestTimeout: "60 seconds" })
        .pipe(Layer.provide(StdioClientTransport.layer({ command: process.execPath, args: [deepServer] })))
      const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
      const started = Date.now()
      const listed = yield* Effect.either(client.listTools())
      expect(Either.isLeft(listed) && listed.left._tag).toBe("TransportError")
      // Failed on arrival, not by the 60-second timeout.
      expect(Date.now() - started).toBeLessThan(30_000)
      const called = yield* client.callTool("anything", {})
      expect(called.content).toEqual([{ type: "text", text: "fine" }])
      expect(client.stats()).toEqual({ pending: 0, inFlight: 0 })
    }))
})

describe("an answer that cannot be encoded", () => {
  it.scoped("a result too deep for JSON is -32603 for its request only; the server serves on", () =>
    Effect.gen(function*() {
      let nested: unknown = "leaf"
      for (let i = 0; i < 20_000; i++) nested = [nested]
      const Deep = McpServer.tool({
        name: "deep",
        input: Schema.Struct({}),
        handler: () => Effect.succeed({ content: [{ type: "text" as const, text: "x" }], _meta: { nested } })
      })
      const Echo = McpServer.tool({
        name: "echo",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }) => Effect.succeed(text)
      })
      const input = new PassThrough()
      const output = new PassThrough()
      const received = yield* Queue.unbounded<any>()
      createInterface({ input: output }).on("line", (line) => received.unsafeOffer(JSON.parse(line)))
      yield* McpServer.serve.pipe(
        Effect.scoped,
        Effect.provide(
          Layer.mergeAll(Deep, Echo).pipe(Layer.provideMerge(McpServer.layer({ name: "s", version: "1" })))
        ),
        Effect.provideService(Transport.Transport, StdioServerTransport.make(input, output)),
        Effect.forkScoped
      )
      const send = (message: unknown) => Effect.sync(() => input.write(`${JSON.stringify(message)}\n`))
      yield* send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      })
      yield* Queue.take(received)
      yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "deep", arguments: {} } })
      expect(yield* Queue.take(received)).toEqual({
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32603, message: "Internal error" }
      })
      yield* send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "on" } } })
      expect(yield* Queue.take(received)).toMatchObject({ id: 3, result: { content: [{ text: "on" }] } })
    }))
})
