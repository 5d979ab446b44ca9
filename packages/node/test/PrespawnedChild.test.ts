/** A stdio server started ahead of its transport: what happens before adoption reaches the adopter; no child is left. */
import { McpClient, Transport } from "@effect-mcp/core"
import { PrespawnedChild, StdioClientTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { isRunning } from "../src/internal/processGroup.js"

// The fixtures import the built packages: `tsc -b` must have run (the root test:all script does).
const server = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))
const stubborn = fileURLToPath(new URL("./fixtures/stubborn.mjs", import.meta.url))
const unadopted = fileURLToPath(new URL("./fixtures/prespawnUnadopted.mjs", import.meta.url))
const built = fileURLToPath(new URL("../dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the fixtures import ${built}`)

const pidFile = () => join(mkdtempSync(join(tmpdir(), "effect-mcp-prespawn-")), "pids.txt")

const pids = (file: string): ReadonlyArray<number> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number) : []

/** Polls until `done` holds (fails the test after `ms`). */
const eventually = (done: () => boolean, what: string, ms = 10_000) =>
  Effect.suspend(() => (done() ? Effect.void : Effect.fail(new Error(`timed out waiting until ${what}`)))).pipe(
    Effect.retry({ schedule: Schedule.spaced("20 millis"), times: Math.ceil(ms / 20) }),
    Effect.orDie
  )

/** Every frame the transport receives until receiving fails; then that failure. */
const receiveAll = (transport: Transport.TransportService) =>
  Effect.gen(function*() {
    const frames: Array<unknown> = []
    const failure = yield* Effect.flip(
      transport.receive((incoming) => {
        if (incoming._tag === "Frame") frames.push(incoming.message)
      })
    )
    return { frames, failure }
  })

/** A node child that writes `lines` JSON lines to stdout, `bad config` to stderr, and exits 5. */
const writerOptions = (lines: number): PrespawnedChild.SpawnOptions => ({
  command: process.execPath,
  args: [
    "-e",
    `for (let i = 0; i < ${lines}; i++) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "n", params: { i } }) + "\\n");` +
    `process.stderr.write("bad config\\n"); process.exitCode = 5`
  ],
  stderr: "ignore"
})

const writer = (lines: number) => PrespawnedChild.spawn(writerOptions(lines))

describe("PrespawnedChild and StdioClientTransport.adopt", () => {
  it.scopedLive("a child that exited before adoption: its exit code and stderr tail, as ServerExited", () =>
    Effect.gen(function*() {
      const child = PrespawnedChild.spawn({
        command: process.execPath,
        args: ["-e", "process.stderr.write('bad config\\n'); process.exit(5)"],
        stderr: "ignore"
      })
      yield* eventually(() => child.ended !== undefined, "the child has exited")
      expect(child.adopted).toBe(false)
      const transport = yield* StdioClientTransport.adopt(child)
      expect(child.adopted).toBe(true)
      const { failure } = yield* receiveAll(transport)
      expect(failure).toBeInstanceOf(StdioClientTransport.ServerExited)
      expect(failure).toMatchObject({ exitCode: 5, stderrTail: "bad config" })
      expect(failure.reason).toBe(
        `the server process (pid ${transport.pid}) exited with code 5; the last lines of its stderr:\nbad config`
      )
      expect(yield* transport.exited).toEqual({
        pid: transport.pid,
        exitCode: 5,
        signal: undefined,
        stderrTail: "bad config"
      })
    }))

  it.scopedLive("a client of a child that exited before adoption fails with its exit, as for one that exits at once", () =>
    Effect.gen(function*() {
      const child = PrespawnedChild.spawn({
        command: process.execPath,
        args: ["-e", "process.stderr.write('bad config\\n'); process.exit(5)"],
        stderr: "ignore"
      })
      yield* eventually(() => child.ended !== undefined, "the child has exited")
      const transport = yield* StdioClientTransport.adopt(child)
      const failure = yield* Effect.flip(
        McpClient.make({ name: "prespawn-test", version: "1.0.0" }).pipe(
          Effect.provideService(Transport.Transport, transport)
        )
      )
      expect(failure._tag).toBe("HandshakeFailed")
      expect(failure.message).toBe(
        `server/discover failed: the transport failed: the server process (pid ${transport.pid}) exited with code 5; ` +
          "the last lines of its stderr:\nbad config"
      )
    }))

  it.scopedLive("what a child wrote before adoption is all received, in order, then its exit", () =>
    Effect.gen(function*() {
      // Small enough for the pipes to hold: the child has written everything and exited before it is adopted.
      const child = writer(300)
      yield* eventually(() => child.ended !== undefined, "the child has exited")
      const transport = yield* StdioClientTransport.adopt(child)
      const { failure, frames } = yield* receiveAll(transport)
      expect(frames).toHaveLength(300)
      expect(frames.map((f) => (f as { params: { i: number } }).params.i)).toEqual([...Array(300).keys()])
      expect(failure).toMatchObject({ exitCode: 5, stderrTail: "bad config" })
    }))

  it.scopedLive("stdout read only after the child has exited, adopted or started by the transport: nothing lost", () =>
    Effect.gen(function*() {
      // Adopted at once, read later: nothing reads its stdout between the adoption and the first `receive`.
      const adopted = yield* StdioClientTransport.adopt(writer(300))
      yield* adopted.exited
      const late = yield* receiveAll(adopted)
      expect(late.frames).toHaveLength(300)
      expect(late.failure).toMatchObject({ exitCode: 5, stderrTail: "bad config" })
      const made = yield* StdioClientTransport.make(writerOptions(300))
      yield* made.exited
      const alsoLate = yield* receiveAll(made)
      expect(alsoLate.frames).toHaveLength(300)
      expect(alsoLate.failure).toMatchObject({ exitCode: 5, stderrTail: "bad config" })
    }))

  it.scopedLive("a child that writes more than its pipes hold waits for its adopter, and loses nothing", () =>
    Effect.gen(function*() {
      // About 400 KB: the child blocks on a full pipe until the adopter reads.
      const child = writer(8_000)
      yield* eventually(() => child.start !== undefined, "the child has started")
      expect(child.ended).toBeUndefined()
      const transport = yield* StdioClientTransport.adopt(child)
      const { failure, frames } = yield* receiveAll(transport)
      expect(frames).toHaveLength(8_000)
      expect((frames[7_999] as { params: { i: number } }).params.i).toBe(7_999)
      expect(failure).toMatchObject({ exitCode: 5, stderrTail: "bad config" })
    }))

  it.scopedLive("a command that cannot be started fails adoption as it fails `make`: could not start ...", () =>
    Effect.gen(function*() {
      const options = { command: "effect-mcp-no-such-command-xyz", args: ["--flag"] }
      const child = PrespawnedChild.spawn(options)
      yield* eventually(() => child.start !== undefined, "the OS has answered")
      expect(child.start?._tag).toBe("Failed")
      const adopted = yield* Effect.flip(StdioClientTransport.adopt(child))
      const made = yield* Effect.flip(StdioClientTransport.make(options))
      expect(adopted.reason).toBe(
        "could not start effect-mcp-no-such-command-xyz --flag: " +
          "spawn effect-mcp-no-such-command-xyz ENOENT"
      )
      expect(made.reason).toBe(adopted.reason)
      const missing = PrespawnedChild.spawn({ command: process.execPath, cwd: "/no/such/dir/xyz" })
      expect((yield* Effect.flip(StdioClientTransport.adopt(missing))).reason).toBe(
        `could not start ${process.execPath}: its working directory /no/such/dir/xyz does not exist`
      )
    }))

  it.scopedLive("adopted at once: a server speaks MCP through it; a second adoption is refused", () =>
    Effect.gen(function*() {
      const child = PrespawnedChild.spawn({ command: process.execPath, args: [server], stderr: "ignore" })
      const transport = yield* StdioClientTransport.adopt(child)
      const client = yield* McpClient.make({ name: "prespawn-test", version: "1.0.0" }).pipe(
        Effect.provideService(Transport.Transport, transport)
      )
      const result = yield* client.callTool("echo", { text: "adopted" })
      expect(result.content).toEqual([{ type: "text", text: "adopted" }])
      const again = yield* Effect.flip(StdioClientTransport.adopt(child))
      expect(again.reason).toMatch(/has a transport already/)
      expect(isRunning(transport.pid)).toBe(true)
    }))

  it.scopedLive("an adopted child is shut down as one the transport started: stdin EOF, SIGTERM, SIGKILL of its group", () =>
    Effect.gen(function*() {
      const file = pidFile()
      const lines: Array<string> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
      const child = PrespawnedChild.spawn({ command: process.execPath, args: [stubborn, file] })
      yield* eventually(() => pids(file).length === 2, "the child and its grandchild have started")
      const scope = yield* Scope.make()
      yield* StdioClientTransport.adopt(child, { gracePeriod: "200 millis" }).pipe(
        Scope.extend(scope),
        Effect.provide(logger)
      )
      yield* Scope.close(scope, Exit.void)
      for (const pid of pids(file)) expect(isRunning(pid)).toBe(false)
      expect(lines.some((l) => l.includes("did not exit on SIGTERM; sending SIGKILL"))).toBe(true)
    }))

  describe("a child nobody adopts is killed with its process group", () => {
    const run = (how: "exit" | "return" | "abandon" | "leader-exited") => {
      const file = pidFile()
      const result = spawnSync(process.execPath, [unadopted, how, file], { encoding: "utf8", timeout: 30_000 })
      return { file, result }
    }
    const gone = (file: string) =>
      Effect.gen(function*() {
        expect(pids(file)).toHaveLength(2)
        yield* eventually(() => pids(file).every((pid) => !isRunning(pid)), "the child and its grandchild are gone")
      })

    it.effect("when the process exits (process.exit)", () =>
      Effect.suspend(() => {
        const { file, result } = run("exit")
        expect(result.status).toBe(3)
        return gone(file)
      }))

    it.effect("when the process ends by itself (the child does not keep it alive)", () =>
      Effect.suspend(() => {
        const { file, result } = run("return")
        expect(result.status).toBe(0)
        return gone(file)
      }))

    it.effect("what it started too, when it has exited itself", () =>
      Effect.suspend(() => {
        const { file, result } = run("leader-exited")
        expect(result.status).toBe(0)
        return gone(file)
      }))

    it.effect("at once with abandon", () =>
      Effect.suspend(() => {
        const { file, result } = run("abandon")
        expect(result.status).toBe(0)
        expect(JSON.parse(result.stdout)).toEqual({ code: null, signal: "SIGKILL" })
        return gone(file)
      }))
  })

  it.scopedLive("the adopter hears of the start and the exit once each, replayed or live", () =>
    Effect.gen(function*() {
      const child = writer(0)
      const events: Array<string> = []
      const done = yield* Deferred.make<void>()
      const adopted = PrespawnedChild.adopt(child, {
        started: (start) => {
          events.push(start._tag)
          // Read to the end, as a transport would.
          if (start._tag === "Started") {
            start.stdout.on("data", () => {})
            start.stderr?.on("data", () => {})
          }
        },
        exited: (ended) => {
          events.push(`exited ${ended.code}`)
          Deferred.unsafeDone(done, Exit.void)
        }
      })
      expect(adopted).toBe(true)
      yield* Deferred.await(done)
      expect(events).toEqual(["Started", "exited 5"])
      expect(PrespawnedChild.adopt(child, { started: () => events.push("again"), exited: () => {} })).toBe(false)
      expect(events).toEqual(["Started", "exited 5"])
    }))
})
