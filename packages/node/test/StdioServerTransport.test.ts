import { McpServer, Transport } from "@effect-mcp/core"
import { StdioServerTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { PassThrough } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import { fileURLToPath } from "node:url"
import * as Ndjson from "../src/internal/ndjson.js"
import * as LineReader from "../src/internal/readable.js"

const info = { name: "stdio-server-test", version: "1.0.0" }

const Echo = McpServer.tool({
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

const Server = Echo.pipe(Layer.provideMerge(McpServer.layer(info)))

const bytes = (text: string) => new TextEncoder().encode(text)

const line = (message: unknown) => `${JSON.stringify(message)}\n`

const initialize = (id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})

const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }

const echo = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text } }
})

/** A server served over two PassThroughs: write bytes to its stdin, read the JSON lines of its stdout. */
const wire = (options: StdioServerTransport.Options = {}) =>
  Effect.gen(function*() {
    const input = new PassThrough()
    const output = new PassThrough()
    const received = yield* Queue.unbounded<any>()
    const raw: Array<string> = []
    const decoder = new StringDecoder("utf8")
    let pending = ""
    output.on("data", (chunk: Buffer) => {
      const text = decoder.write(chunk)
      raw.push(text)
      pending += text
      let at: number
      while ((at = pending.indexOf("\n")) !== -1) {
        received.unsafeOffer(JSON.parse(pending.slice(0, at)))
        pending = pending.slice(at + 1)
      }
    })
    const served = yield* McpServer.serve.pipe(
      Effect.scoped,
      Effect.provide(Server),
      Effect.provideService(Transport.Transport, StdioServerTransport.make(input, output, options)),
      Effect.forkScoped
    )
    return {
      input,
      raw,
      served,
      write: (chunk: string | Uint8Array) =>
        Effect.sync(() => {
          input.write(typeof chunk === "string" ? bytes(chunk) : chunk)
        }),
      next: Queue.take(received)
    }
  })

describe("the NDJSON splitter", () => {
  const text = "héllo wörld 🌍 — ✓ 日本語"
  const stream = bytes(line(echo(1, text)) + "\n" + line(echo(2, "two")) + "   \r\n" + line(echo(3, text)))

  it("yields the same frames however the bytes are cut (inside UTF-8 characters too)", () => {
    const whole = Ndjson.makeSplitter().push(stream)
    expect(whole.map((f) => f._tag)).toEqual(["Frame", "Frame", "Frame"])
    for (let cut = 1; cut < stream.length; cut++) {
      const splitter = Ndjson.makeSplitter()
      const frames = [
        ...splitter.push(stream.subarray(0, cut)),
        ...splitter.push(stream.subarray(cut)),
        ...splitter.flush()
      ]
      expect(frames).toEqual(whole)
    }
    const splitter = Ndjson.makeSplitter()
    const oneByOne = [...stream].flatMap((b) => splitter.push(Uint8Array.of(b)))
    expect(oneByOne).toEqual(whole)
    expect((whole[0] as Transport.Frame).message).toMatchObject({ params: { arguments: { text } } })
  })

  it("marks a line that is not JSON, or not UTF-8, as malformed, and goes on", () => {
    const splitter = Ndjson.makeSplitter()
    const out = [
      ...splitter.push(bytes("not json\n")),
      ...splitter.push(Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d, 0x0a)),
      ...splitter.push(bytes(line({ ok: true })))
    ]
    expect(out.map((f) => f._tag)).toEqual(["Malformed", "Malformed", "Frame"])
    expect((out[0] as Transport.Malformed).reason).toContain("not JSON")
    expect((out[1] as Transport.Malformed).reason).toContain("UTF-8")
  })

  it("parses an unterminated last line at the end of the input", () => {
    const splitter = Ndjson.makeSplitter()
    expect(splitter.push(bytes("{\"a\":1}"))).toEqual([])
    expect(splitter.flush()).toEqual([Transport.frame({ a: 1 })])
  })

  it("turns a line longer than the limit into one malformed marker and resynchronises at the next newline", () => {
    const splitter = Ndjson.makeSplitter({ maxLineBytes: 16 })
    const out = [
      ...splitter.push(bytes("{\"long\": \"aaaaaaaa")),
      ...splitter.push(bytes("aaaaaaaaaaaaaaaa\"}\n{\"b\":2}\n"))
    ]
    expect(out.map((f) => f._tag)).toEqual(["Malformed", "Frame"])
    expect(out[1]).toEqual(Transport.frame({ b: 2 }))
  })

  it("a too-long line that starts as a response names the id it answers; a too-long request does not", () => {
    const splitter = Ndjson.makeSplitter({ maxLineBytes: 64 })
    const big = "x".repeat(200)
    const out = [
      ...splitter.push(bytes(`{"jsonrpc":"2.0","id":"r-1","result":{"t":"${big}"}}\n`)),
      ...splitter.push(bytes(`{"jsonrpc":"2.0","id":7,"er`)),
      ...splitter.push(bytes(`ror":{"code":1,"message":"${big}"}}\n`)),
      ...splitter.push(bytes(`{"jsonrpc":"2.0","id":8,"method":"x","params":{"t":"${big}"}}\n`)),
      // cut in the id, then overflowing before the newline arrives
      ...splitter.push(bytes(`{"jsonrpc":"2.0","id":12`)),
      ...splitter.push(bytes(`34,"result":{"t":"${big}`)),
      ...splitter.push(bytes(`"}}\n`))
    ]
    expect(out).toEqual([
      { _tag: "Malformed", reason: "the line is longer than 64 bytes", responseTo: "r-1" },
      { _tag: "Malformed", reason: "the line is longer than 64 bytes", responseTo: 7 },
      { _tag: "Malformed", reason: "the line is longer than 64 bytes" },
      { _tag: "Malformed", reason: "the line is longer than 64 bytes", responseTo: 1234 }
    ])
  })

  it.effect("reads a Readable: frames as their lines complete, the unterminated last line at its end", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const frames: Array<Transport.Incoming> = []
      const reading = yield* Effect.fork(LineReader.receive(input, "the input")((incoming) => frames.push(incoming)))
      input.write(bytes("{\"a\":"))
      input.write(bytes("1}\n\n{\"b\""))
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(frames).toEqual([Transport.frame({ a: 1 })])
      input.end(bytes(":2}"))
      yield* Fiber.join(reading)
      expect(frames).toEqual([Transport.frame({ a: 1 }), Transport.frame({ b: 2 })])
    }))

  it.effect("a read error fails receiving with a TransportError", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const reading = yield* Effect.fork(LineReader.receive(input, "the input")(() => {}))
      yield* Effect.yieldNow()
      input.destroy(new Error("boom"))
      const error = yield* Effect.flip(Fiber.join(reading))
      expect(error.reason).toBe("could not read the input: boom")
    }))
})

describe("StdioServerTransport", () => {
  it.scopedLive("a request cut inside a UTF-8 character, across several writes, arrives whole", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write(line(initialize()) + line(initialized))
      expect(yield* peer.next).toMatchObject({ id: 1, result: { serverInfo: info } })
      const text = "snowman ☃, globe 🌍, kanji 日本"
      const request = bytes(line(echo(2, text)))
      const globe = request.indexOf(0xf0) // the first byte of 🌍
      const cuts = [0, globe + 1, globe + 2, globe + 3, request.length - 1, request.length]
      // Each piece is written once the one before it was delivered: the transport reads them one by one.
      for (let i = 0; i + 1 < cuts.length; i++) {
        yield* Effect.async<void>((resume) => {
          peer.input.once("data", () => resume(Effect.void))
          peer.input.write(request.subarray(cuts[i]!, cuts[i + 1]!))
        })
      }
      expect(yield* peer.next).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text }] } })
    }))

  it.scopedLive("several messages in one chunk are all answered", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write(
        line(initialize()) + line(initialized) + line(echo(2, "a")) + line(echo(3, "b")) + line(echo(4, "c"))
      )
      const responses = [yield* peer.next, yield* peer.next, yield* peer.next, yield* peer.next]
      expect(responses.map((r) => r.id).sort()).toEqual([1, 2, 3, 4])
      const texts = responses.filter((r) => r.id !== 1).map((r) => r.result.content[0].text)
      expect(texts.sort()).toEqual(["a", "b", "c"])
    }))

  it.scopedLive("a line that is not JSON gets -32700 with id null, and the next request succeeds", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write(line(initialize()) + line(initialized))
      yield* peer.next
      yield* peer.write("this is {not json\n")
      const error = yield* peer.next
      expect(error).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
      yield* peer.write(line(echo(2, "still here")))
      expect(yield* peer.next).toMatchObject({ id: 2, result: { content: [{ text: "still here" }] } })
    }))

  it.scopedLive("blank lines are ignored and CRLF line endings are accepted", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write("\n\n   \n" + JSON.stringify(initialize()) + "\r\n\r\n" + line(initialized))
      expect(yield* peer.next).toMatchObject({ id: 1, result: { serverInfo: info } })
      yield* peer.write(JSON.stringify(echo(2, "crlf")) + "\r\n")
      expect(yield* peer.next).toMatchObject({ id: 2, result: { content: [{ text: "crlf" }] } })
    }))

  it.scopedLive("a line longer than maxLineBytes gets -32700 and the server carries on", () =>
    Effect.gen(function*() {
      const peer = yield* wire({ maxLineBytes: 1024 })
      yield* peer.write(line(initialize()) + line(initialized))
      yield* peer.next
      yield* peer.write(line(echo(2, "x".repeat(4096))) + line(echo(3, "short")))
      expect(yield* peer.next).toMatchObject({ id: null, error: { code: -32700 } })
      expect(yield* peer.next).toMatchObject({ id: 3, result: { content: [{ text: "short" }] } })
    }))

  it.scopedLive("every message goes out as exactly one line of JSON", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write(line(initialize()) + line(initialized) + line(echo(2, "multi\nline\ntext")))
      yield* peer.next
      yield* peer.next
      const out = peer.raw.join("")
      expect(out.endsWith("\n")).toBe(true)
      const lines = out.split("\n").slice(0, -1)
      expect(lines).toHaveLength(2)
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow()
    }))

  it.scopedLive("stdin EOF ends McpServer.serve", () =>
    Effect.gen(function*() {
      const peer = yield* wire()
      yield* peer.write(line(initialize()) + line(initialized))
      yield* peer.next
      peer.input.end()
      yield* Fiber.join(peer.served).pipe(Effect.timeout("5 seconds"))
    }))

  it.scopedLive("a send waits for the output to drain", () =>
    Effect.gen(function*() {
      const output = new PassThrough({ highWaterMark: 64 })
      const transport = StdioServerTransport.make(new PassThrough(), output)
      const big = { jsonrpc: "2.0" as const, method: "notifications/message", params: { data: "x".repeat(100_000) } }
      const sending = yield* Effect.fork(transport.send(big))
      // Once its fiber stops running, the send has written its line: it must wait (not be done), for a drain.
      yield* Effect.repeat(Fiber.status(sending), { until: (status) => !FiberStatus.isRunning(status) })
      expect(output.writableNeedDrain).toBe(true)
      expect(Option.isNone(yield* Fiber.poll(sending))).toBe(true)
      let received = 0
      output.on("data", (chunk: Buffer) => {
        received += chunk.length
      })
      yield* Fiber.join(sending).pipe(Effect.timeout("5 seconds"))
      expect(received).toBe(JSON.stringify(big).length + 1)
    }))

  it.scopedLive("a send to a destroyed output fails with a TransportError", () =>
    Effect.gen(function*() {
      const output = new PassThrough()
      const transport = StdioServerTransport.make(new PassThrough(), output)
      yield* Effect.async<void>((resume) => {
        output.once("close", () => resume(Effect.void))
        output.destroy(new Error("EPIPE, say"))
      })
      const error = yield* Effect.flip(transport.send({ jsonrpc: "2.0", method: "ping" }))
      expect(error._tag).toBe("TransportError")
    }))
})

// The fixture imports the built packages: `tsc -b` must have run (the root test:all script does).
const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))

/** The lines of a child's stdout or stderr, one Queue item each (stdout's parsed as JSON). */
const lines = <A>(stream: NodeJS.ReadableStream, parse: (line: string) => A) =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<A>()
    const decoder = new StringDecoder("utf8")
    let pending = ""
    stream.on("data", (chunk: Buffer) => {
      pending += decoder.write(chunk)
      let at: number
      while ((at = pending.indexOf("\n")) !== -1) {
        queue.unsafeOffer(parse(pending.slice(0, at)))
        pending = pending.slice(at + 1)
      }
    })
    return queue
  })

describe("StdioServerTransport in a real child process", () => {
  for (const id of ["call-1", "1", 1]) {
    it.scopedLive(`notifications/cancelled for request id ${JSON.stringify(id)} interrupts the handler; it gets no answer`, () =>
      Effect.gen(function*() {
        if (!existsSync(fileURLToPath(new URL("../dist/index.js", import.meta.url)))) {
          return yield* Effect.dieMessage("run `tsc -b` first: the stdio fixture imports the built packages")
        }
        const child = yield* Effect.acquireRelease(
          Effect.sync(() => spawn(process.execPath, [fixture], { stdio: ["pipe", "pipe", "pipe"] })),
          (child) => Effect.sync(() => child.kill("SIGKILL"))
        )
        const out = yield* lines(child.stdout, (line) => JSON.parse(line))
        const err = yield* lines(child.stderr, (line) => line)
        const send = (message: unknown) => Effect.sync(() => child.stdin.write(line(message)))
        /** Waits (5 s at most) for the fixture's stderr line `fixture: <marker>`. */
        const marked = (marker: string) =>
          Queue.take(err).pipe(
            Effect.repeat({ until: (l) => l === `fixture: ${marker}` }),
            Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`no "${marker}" within 5 s`) })
          )
        yield* send(initialize("init"))
        expect(yield* Queue.take(out)).toMatchObject({ id: "init", result: { serverInfo: { name: "stdio-fixture" } } })
        yield* send(initialized)
        const slow = { name: "slow", arguments: { steps: 1_000_000, delayMs: 20 } }
        yield* send({ jsonrpc: "2.0", id, method: "tools/call", params: slow })
        yield* marked("slow: started")
        yield* send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "test" } })
        yield* marked("slow: interrupted")
        // The cancelled request got no answer: the next response is the ping's.
        yield* send({ jsonrpc: "2.0", id: "after", method: "ping" })
        const seen: Array<any> = []
        while (seen.at(-1)?.id !== "after") seen.push(yield* Queue.take(out))
        expect(seen.filter((m) => "id" in m)).toEqual([{ jsonrpc: "2.0", id: "after", result: {} }])
      }))
  }
})
