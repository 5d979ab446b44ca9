import { McpClient, Transport } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { isRunning } from "../src/internal/processGroup.js"

// The fixture imports the built packages: `tsc -b` must have run (the root test:all script does).
const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))
const built = fileURLToPath(new URL("../dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the stdio fixture imports ${built}`)

const clientOptions = { name: "stdio-test-client", version: "1.0.0" }

const markerFile = () => join(mkdtempSync(join(tmpdir(), "effect-mcp-stdio-")), "markers.txt")

const markers = (file: string): ReadonlyArray<string> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

const count = (file: string, marker: string) => markers(file).filter((m) => m === marker).length

/** Polls until `done` holds (fails the test after `ms`). */
const eventually = (done: () => boolean, what: string, ms = 10_000) =>
  Effect.suspend(() => (done() ? Effect.void : Effect.fail(new Error(`timed out waiting until ${what}`)))).pipe(
    Effect.retry({ schedule: Schedule.spaced("20 millis"), times: Math.ceil(ms / 20) }),
    Effect.orDie
  )

const fixtureTransport = (marker: string, options: Partial<StdioClientTransport.Options> = {}) =>
  StdioClientTransport.make({
    command: process.execPath,
    args: [fixture],
    env: { MARKER_FILE: marker },
    stderrLevel: "debug",
    ...options
  })

const connect = (transport: Transport.TransportService, options: Partial<McpClient.Options> = {}) =>
  McpClient.make({ ...clientOptions, ...options }).pipe(Effect.provideService(Transport.Transport, transport))

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/** A logger that keeps what it is told, for checks on what was logged. */
const capture = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

describe("StdioClientTransport against a real child process", () => {
  const revisions: ReadonlyArray<Revision.Revision | undefined> = [undefined, ...Revision.all]
  for (const revision of revisions) {
    it.scopedLive(`the scenario: handshake, tools, echo, progress as a stream, cancellation (${revision ?? "negotiated"})`, () =>
      Effect.gen(function*() {
        const marker = markerFile()
        const layer = McpClient.layer({ ...clientOptions, ...(revision === undefined ? {} : { revision }) }).pipe(
          Layer.provide(
            StdioClientTransport.layer({
              command: process.execPath,
              args: [fixture],
              env: { MARKER_FILE: marker },
              stderrLevel: "debug"
            })
          )
        )
        const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
        expect(client.serverInfo.name).toBe("stdio-fixture")
        if (revision !== undefined) expect(client.revision).toBe(revision)

        const tools = yield* client.listTools()
        expect(tools.map((t) => t.name)).toEqual(["echo", "slow", "flood", "garbage", "crash", "pid"])

        expect(text(yield* client.callTool("echo", { text: "héllo 🌍" }))).toBe("héllo 🌍")

        const events = yield* Stream.runCollect(client.callToolStream("slow", { steps: 3, delayMs: 10 }))
        const all = Chunk.toReadonlyArray(events)
        expect(all.filter((e) => e._tag === "Progress").map((e) => e._tag === "Progress" && e.progress.progress))
          .toEqual([1, 2, 3])
        const last = all[all.length - 1]!
        expect(last._tag === "Result" && text(last.result)).toBe("done after 3 steps")

        const call = yield* Effect.fork(client.callTool("slow", { steps: 10_000, delayMs: 50 }))
        yield* eventually(() => count(marker, "slow: started") === 2, "the slow handler started")
        yield* Fiber.interrupt(call)
        yield* eventually(() => count(marker, "slow: interrupted") === 1, "the server handler was interrupted")

        expect(text(yield* client.callTool("echo", { text: "after cancel" }))).toBe("after cancel")
      }))
  }

  it.scopedLive("1,000 calls with 64 in flight all complete", () =>
    Effect.gen(function*() {
      const transport = yield* fixtureTransport(markerFile())
      const client = yield* connect(transport)
      const ids = Array.from({ length: 1000 }, (_, i) => i)
      const results = yield* Effect.forEach(ids, (i) => client.callTool("echo", { text: `call ${i}` }), {
        concurrency: 64
      })
      expect(results.map(text)).toEqual(ids.map((i) => `call ${i}`))
    }))

  it.scopedLive("a response above maxLineBytes fails its call at once with a TransportError; the client carries on", () =>
    Effect.gen(function*() {
      const transport = yield* fixtureTransport(markerFile(), { maxLineBytes: 64 * 1024 })
      const client = yield* connect(transport, { requestTimeout: "30 seconds" })
      const started = Date.now()
      const error = yield* Effect.flip(client.callTool("echo", { text: "x".repeat(200_000) }))
      expect(error).toMatchObject({ _tag: "TransportError" })
      expect(error.message).toMatch(/longer than 65536 bytes/)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(text(yield* client.callTool("echo", { text: "small" }))).toBe("small")
    }))

  it.scopedLive("stdin EOF: closing the scope closes stdin, the server exits 0 and its finalizer ran", () =>
    Effect.gen(function*() {
      const marker = markerFile()
      const scope = yield* Scope.make()
      const transport = yield* fixtureTransport(marker, { gracePeriod: "10 seconds" }).pipe(Scope.extend(scope))
      const client = yield* connect(transport).pipe(Scope.extend(scope))
      expect(text(yield* client.callTool("echo", { text: "hi" }))).toBe("hi")
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      const exit = yield* transport.exited
      expect(exit.exitCode).toBe(0)
      expect(exit.signal).toBeUndefined()
      expect(Date.now() - started).toBeLessThan(5_000) // on EOF, not after the 10 s grace period and a signal
      expect(markers(marker)).toContain("finalizer ran")
      expect(isRunning(transport.pid)).toBe(false)
    }))

  it.live("stdin EOF with a plain child_process: exit code 0, only JSON lines on stdout, logs on stderr", () =>
    Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
      const marker = markerFile()
      const child = spawn(process.execPath, [fixture], { env: { ...process.env, MARKER_FILE: marker } })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
      child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
      const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`)
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      })
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "bye" } } })
      child.stdin.write("not json either\n")
      child.stdin.end()
    }).pipe(
      Effect.map(({ code, stderr, stdout }) => {
        expect(code).toBe(0)
        const lines = stdout.split("\n").filter((l) => l !== "")
        const messages = lines.map((l) => JSON.parse(l))
        expect(messages.map((m) => m.id)).toEqual(expect.arrayContaining([1, 2, null]))
        expect(messages.find((m) => m.id === null)?.error.code).toBe(-32700)
        expect(stderr).toContain("fixture: started (this log line must go to stderr)")
        expect(stderr).toContain("fixture: finalizer ran")
      })
    ))

  it.scopedLive("a server sent SIGTERM runs its finalizers and exits 0", () =>
    Effect.gen(function*() {
      const marker = markerFile()
      const transport = yield* fixtureTransport(marker)
      const client = yield* connect(transport)
      expect(text(yield* client.callTool("echo", { text: "hi" }))).toBe("hi")
      process.kill(transport.pid, "SIGTERM")
      const exit = yield* transport.exited
      expect(exit.exitCode).toBe(0)
      expect(markers(marker)).toContain("finalizer ran")
      const error = yield* Effect.flip(client.callTool("echo", { text: "gone" }))
      expect(error._tag).toBe("ConnectionClosed")
    }))

  it.scopedLive("a child killed with SIGKILL mid-call fails the pending call with ConnectionClosed, quickly", () =>
    Effect.gen(function*() {
      const marker = markerFile()
      const transport = yield* fixtureTransport(marker)
      const client = yield* connect(transport, { requestTimeout: "60 seconds" })
      const { pid } = JSON.parse(text(yield* client.callTool("pid")))
      expect(pid).toBe(transport.pid)
      const call = yield* Effect.fork(client.callTool("slow", { steps: 10_000, delayMs: 50 }))
      yield* eventually(() => count(marker, "slow: started") === 1, "the slow handler started")
      const killedAt = Date.now()
      process.kill(transport.pid, "SIGKILL")
      const error = yield* Effect.flip(Fiber.join(call))
      expect(Date.now() - killedAt).toBeLessThan(2_000)
      expect(error._tag).toBe("ConnectionClosed")
      expect(error._tag === "ConnectionClosed" && error.reason).toContain("SIGKILL")
      const exit = yield* transport.exited
      expect(exit.signal).toBe("SIGKILL")
      const after = yield* Effect.flip(client.callTool("echo", { text: "anyone?" }))
      expect(after._tag).toBe("ConnectionClosed")
    }))

  it.scopedLive("a child that exits mid-call fails it with ConnectionClosed carrying the exit code and stderr tail", () =>
    Effect.gen(function*() {
      const transport = yield* fixtureTransport(markerFile())
      const client = yield* connect(transport)
      const error = yield* Effect.flip(client.callTool("crash", { code: 3 }))
      expect(error._tag).toBe("ConnectionClosed")
      const reason = error._tag === "ConnectionClosed" ? error.reason : ""
      expect(reason).toContain("exited with code 3")
      expect(reason).toContain("fixture: about to crash with code 3")
      expect(error._tag === "ConnectionClosed" && error.exitCode).toBe(3)
      expect(error._tag === "ConnectionClosed" && error.stderrTail).toContain("fixture: about to crash with code 3")
      const exit = yield* transport.exited
      expect(exit.exitCode).toBe(3)
      expect(exit.stderrTail).toContain("fixture: about to crash with code 3")
      expect(transport.stderrTail()).toContain("fixture: about to crash with code 3")
    }))

  it.scopedLive("garbage on the server's stdout is logged and dropped, and the client keeps working", () => {
    const logs = capture()
    return Effect.gen(function*() {
      const transport = yield* fixtureTransport(markerFile(), { stderrLevel: "info" })
      const client = yield* connect(transport)
      expect(text(yield* client.callTool("garbage"))).toBe("wrote garbage")
      expect(text(yield* client.callTool("echo", { text: "still fine" }))).toBe("still fine")
      yield* eventually(
        () => logs.lines.filter((l) => l.includes("dropped a line of the server's stdout")).length === 2,
        "both garbage lines were logged"
      )
      // The child's stderr is forwarded to the logger too.
      expect(logs.lines.some((l) => l.startsWith("INFO") && l.includes("fixture: started"))).toBe(true)
    }).pipe(Effect.provide(logs.layer))
  })

  it.scopedLive("closing the scope kills the whole process tree of a server started through sh -c", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "effect-mcp-tree-"))
      const sleepPidFile = join(dir, "sleep.pid")
      const script = `sleep 1000 & echo $! > '${sleepPidFile}'; '${process.execPath}' '${fixture}'; exit $?`
      const scope = yield* Scope.make()
      const transport = yield* StdioClientTransport.make({
        command: "sh",
        args: ["-c", script],
        env: { MARKER_FILE: join(dir, "markers.txt") },
        gracePeriod: "500 millis"
      }).pipe(Scope.extend(scope))
      const client = yield* connect(transport).pipe(Scope.extend(scope))
      const { pid, ppid } = JSON.parse(text(yield* client.callTool("pid")))
      expect(ppid).toBe(transport.pid) // node is the shell's child: a grandchild of ours
      yield* eventually(() => existsSync(sleepPidFile) && readFileSync(sleepPidFile, "utf8").trim() !== "", "pid file")
      const sleepPid = Number(readFileSync(sleepPidFile, "utf8").trim())
      for (const p of [transport.pid, pid, sleepPid]) expect(isRunning(p)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      for (const p of [transport.pid, pid, sleepPid]) expect(isRunning(p)).toBe(false)
      // `kill(pid, 0)` agrees once the orphans' zombies are reaped (by init, which may take a moment).
      yield* eventually(() => {
        try {
          process.kill(sleepPid, 0)
          return false
        } catch {
          return true
        }
      }, "the sleep grandchild is gone")
    }))

  it.scopedLive("a child that ignores stdin EOF and SIGTERM is SIGKILLed after the grace periods", () =>
    Effect.gen(function*() {
      const logs = capture()
      const scope = yield* Scope.make()
      const transport = yield* StdioClientTransport.make({
        command: "sh",
        args: ["-c", "trap '' TERM; sleep 30; exit 0"],
        gracePeriod: "300 millis"
      }).pipe(Scope.extend(scope), Effect.provide(logs.layer))
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      const took = Date.now() - started
      expect(took).toBeGreaterThanOrEqual(550)
      expect(took).toBeLessThan(3_000)
      expect(isRunning(transport.pid)).toBe(false)
      expect(logs.lines.some((l) => l.includes("sending SIGKILL"))).toBe(true)
    }))

  it.scopedLive("a command that cannot be started fails with a TransportError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(StdioClientTransport.make({ command: "effect-mcp-no-such-command-xyz" }))
      expect(error._tag).toBe("TransportError")
      expect(error.reason).toContain("could not start effect-mcp-no-such-command-xyz")
    }))

  it.scopedLive("env and cwd reach the child", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "effect-mcp-cwd-"))
      const transport = yield* StdioClientTransport.make({
        command: "sh",
        args: ["-c", "echo \"{\\\"cwd\\\": \\\"$(pwd)\\\", \\\"v\\\": \\\"$MY_VAR\\\"}\"; sleep 5"],
        env: { MY_VAR: "from the test" },
        cwd: dir,
        gracePeriod: "100 millis"
      })
      const received = yield* Deferred.make<Transport.Incoming>()
      yield* Effect.fork(transport.receive((incoming) => Deferred.unsafeDone(received, Exit.succeed(incoming))))
      const first = yield* Deferred.await(received)
      expect(first._tag === "Frame" && first.message).toEqual({
        cwd: dir,
        v: "from the test"
      })
    }))
})
