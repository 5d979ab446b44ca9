/**
 * `maxLineBytes` over real child processes, with a 50 MB line against a 1 KiB limit. The server (the leak fixture
 * with MAX_LINE_BYTES=1024) keeps no part of the line while it streams in (its memory after a full collection,
 * reported on SIGUSR2 with 40 MB of the line received, is where it was before), answers it with -32700, then the
 * next request. The client (StdioClientTransport with maxLineBytes 1024) fails the call that a 50 MB response line
 * answers with a TransportError while the line's end is not even written (the fixture holds its output after 40 MB,
 * PAUSE_STDOUT_AT), keeps no part of the line either (its memory after a full collection, taken there, is where it
 * was before), and carries on once the rest has come.
 *
 * Each side's memory is taken once, at a point the test knows is 40 MB into the line, not sampled on a timer: a
 * sampler collecting the whole test worker every 100 ms took the client's event loop from the 50 MB it had to read
 * (on a loaded machine the collections outlasted the interval, and the pipe was read a few 64 KiB chunks a tick),
 * which on Node 22 and 24, whose collections of this worker are slower, outlasted the 60 s request timeout.
 */
import { McpClient, Transport } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync } from "node:fs"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { fixture, until } from "./leakProbe.js"

setFlagsFromString("--expose-gc")
const gc: () => void = runInNewContext("gc")

const built = fileURLToPath(new URL("../dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the fixture imports ${built}`)

const LIMIT = 1024
const MB = 1024 * 1024
const LINE_MB = 50
// Keeping the line would keep tens of MB reachable; streaming past it keeps a chunk or two of 64 KiB.
const ROOM = 8 * MB
// Where the fixture holds its output in the client's test: 40 MB into the response line.
const PAUSE_AT = 40 * MB

/** Memory after a full collection. */
interface Collected {
  readonly heapUsed: number
  readonly external: number
}

/** This process's memory after a full collection (twice: the first one's array buffers may be swept later). */
const collected = (): Collected => {
  gc()
  gc()
  return process.memoryUsage()
}

it.live(
  `the server answers a ${LINE_MB} MB line -32700 without keeping it, then serves on`,
  () =>
    Effect.promise(async () => {
      const child = spawn(process.execPath, ["--expose-gc", fixture], {
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, MAX_LINE_BYTES: String(LIMIT) }
      })
      try {
        const received: Array<Record<string, unknown>> = []
        const reports: Array<Collected> = []
        const waiting: Array<() => void> = []
        const wakeAll = () => {
          for (const wake of waiting.splice(0)) wake()
        }
        createInterface({ input: child.stdout }).on("line", (line) => {
          received.push(JSON.parse(line))
          wakeAll()
        })
        createInterface({ input: child.stderr }).on("line", (line) => {
          if (line.startsWith("MEMORY ")) reports.push(JSON.parse(line.slice("MEMORY ".length)))
          wakeAll()
        })
        /** Resolves once `found` finds something (woken by each line the child writes). */
        const next = async <A>(found: () => A | undefined): Promise<A> => {
          for (;;) {
            const value = found()
            if (value !== undefined) return value
            await new Promise<void>((wake) => waiting.push(wake))
          }
        }
        const answer = (match: (m: Record<string, unknown>) => boolean) => next(() => received.find(match))
        /** The server's memory after a full collection, reported on SIGUSR2 (even in the middle of a line). */
        const memory = () => {
          const index = reports.length
          child.kill("SIGUSR2")
          return next(() => reports[index])
        }
        const write = async (text: string) => {
          if (!child.stdin.write(text)) await once(child.stdin, "drain")
        }
        const line = (message: unknown) => write(`${JSON.stringify(message)}\n`)
        await line({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "lines", version: "0" } }
        })
        await answer((m) => m.id === 0)
        await line({ jsonrpc: "2.0", method: "notifications/initialized" })
        await line({ jsonrpc: "2.0", id: "ready", method: "ping" })
        await answer((m) => m.id === "ready")

        const before = await memory()
        const chunk = "x".repeat(MB)
        await write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`)
        for (let i = 0; i < LINE_MB - 10; i++) await write(chunk)
        // 40 MB of the line are in (all but what the pipe holds): what does the server keep of them?
        const during = await memory()
        for (let i = LINE_MB - 10; i < LINE_MB; i++) await write(chunk)
        await write(`"}}}\n`)
        const refused = await answer((m) => "error" in m)
        await line({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "after" } }
        })
        const after = await answer((m) => m.id === 2)

        expect(during.external - before.external, "the server's external memory, 40 MB into the line")
          .toBeLessThan(ROOM)
        expect(during.heapUsed - before.heapUsed, "the server's heap, 40 MB into the line").toBeLessThan(ROOM)
        expect(refused).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
        expect(JSON.stringify(refused).length).toBeLessThan(1024) // the line is not echoed back
        expect(after).toMatchObject({ result: { content: [{ type: "text", text: "after" }] } })
        expect(received.filter((m) => m.id === 1)).toEqual([])
        child.stdin.end()
        const [code] = await once(child, "exit")
        expect(code).toBe(0)
      } finally {
        child.kill("SIGKILL")
      }
    }),
  120_000
)

it.scopedLive(
  `a ${LINE_MB} MB response line fails its call at once without being kept; the client carries on`,
  () =>
    Effect.gen(function*() {
      const transport = yield* StdioClientTransport.make({
        command: process.execPath,
        args: ["--expose-gc", fixture],
        env: { PAUSE_STDOUT_AT: String(PAUSE_AT) },
        stderr: "ignore",
        maxLineBytes: LIMIT
      })
      const client = yield* McpClient.make({ name: "lines", version: "0", requestTimeout: "60 seconds" }).pipe(
        Effect.provideService(Transport.Transport, transport)
      )
      const paused = () => transport.stderrTail().includes(`PAUSED ${PAUSE_AT}`)
      const before = collected()
      // Fails on the line's first bytes: the server holds its end until `resume` below (a client that waited for
      // the end would see this call time out instead).
      const error = yield* Effect.flip(client.callTool("big", { size: LINE_MB * MB }))
      // The server's stdout has taken 40 MB of the line: the client has read all of it but what the pipe holds.
      yield* until("the server holds the line after 40 MB", Effect.sync(paused))
      const during = collected()
      const resumed = yield* client.callTool("resume", {})
      const answer = yield* client.callTool("echo", { text: "after" })

      expect(error).toMatchObject({ _tag: "TransportError" })
      expect(error.message).toMatch(/longer than 1024 bytes/)
      expect(during.external - before.external, "the client's external memory, 40 MB into the line")
        .toBeLessThan(ROOM)
      expect(during.heapUsed - before.heapUsed, "the client's heap, 40 MB into the line").toBeLessThan(ROOM)
      expect(resumed.content).toEqual([{ type: "text", text: "resumed" }])
      expect(answer.content).toEqual([{ type: "text", text: "after" }])
    }),
  120_000
)
