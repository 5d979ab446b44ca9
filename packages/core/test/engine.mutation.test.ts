/**
 * The engine at its own boundary, driven by hand through a real in-memory transport, for what the session-level
 * tests leave open (each case kills mutants that survived `pnpm mutation`, see docs/mutation.md): the frame limits'
 * verdicts, what goes on the wire and with which send options, progress and cancellation edge cases, batches,
 * timeouts on time, a frame whose handling throws, and how a connection ends (and that it then holds no fiber).
 */
import { JsonRpc, McpError } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { ConnectionClosed } from "../src/Errors.js"
import * as Engine from "../src/internal/engine.js"
import * as FrameLimits from "../src/internal/frameLimits.js"
import * as Transport from "../src/Transport.js"

// ---------- the harness ----------

/** One message the engine sent, with the options it was sent with. */
interface Sent {
  readonly message: any
  readonly options: Transport.SendOptions | undefined
}

/** What the engine logged. */
interface Logged {
  readonly level: string
  readonly text: string
}

interface Config {
  /** Answers a request (default: `{}` for any method). */
  readonly onRequest?: (request: { readonly id: unknown; readonly method: string }) => Effect.Effect<
    Record<string, unknown>,
    string
  >
  readonly onNotification?: (notification: { readonly method: string }) => Effect.Effect<void>
  readonly acceptsBatch?: boolean
  readonly options?: Engine.EngineOptions
  /** Sends of messages this refuses fail with a TransportError. */
  readonly refuse?: (message: any) => boolean
  /** The transport's receive, instead of a pushing (listen) transport. */
  readonly receive?: (inbound: Transport.Inbound) => Transport.TransportService["receive"]
}

/** An engine on an in-memory transport: push frames in, read what it sends, see what it logged and its fibers. */
const harness = (config: Config = {}) =>
  Effect.gen(function*() {
    const inbound = yield* Transport.makeInbound
    const out = yield* Queue.unbounded<Sent>()
    const logged: Array<Logged> = []
    const notified: Array<string> = []
    const logger = Logger.make(({ cause, logLevel, message }) => {
      const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
      logged.push({ level: logLevel.label, text: Cause.isEmpty(cause) ? text : `${text} ${Cause.pretty(cause)}` })
    })
    const transport: Transport.TransportService = {
      ...(config.receive === undefined ? { listen: inbound.listen } : {}),
      receive: config.receive === undefined ? inbound.receive : config.receive(inbound),
      send: (message, options) =>
        config.refuse?.(message)
          ? Effect.fail(new Transport.TransportError({ reason: "refused by the test" }))
          : Effect.asVoid(Queue.offer(out, { message, options }))
    }
    const handlers: Engine.Handlers<string> = {
      onRequest: (request) => config.onRequest?.(request) ?? Effect.succeed({}),
      toWire: (error) => ({ code: -32000, message: error }),
      onNotification: (notification) => {
        notified.push(notification.method)
        return config.onNotification?.(notification) ?? Effect.void
      },
      acceptsBatch: () => config.acceptsBatch ?? true
    }
    const fibers = yield* Supervisor.track
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const engine = yield* Engine.make(handlers, config.options).pipe(
      Effect.provideService(Transport.Transport, transport),
      Effect.provideService(Scope.Scope, scope),
      Effect.supervised(fibers),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    )
    // The pushing transport starts listening in a fiber of its own: wait for it, as a first frame would.
    yield* Effect.yieldNow()
    const push = (message: unknown) => Effect.sync(() => void inbound.push(Transport.frame(message)))
    return {
      engine,
      inbound,
      scope,
      logged,
      notified,
      push,
      pushIncoming: (incoming: Transport.Incoming) => Effect.sync(() => void inbound.push(incoming)),
      next: Queue.take(out),
      /** What was sent so far and not read. */
      drain: Effect.map(Queue.takeAll(out), Chunk.toReadonlyArray),
      /** Sends a ping request and returns what came before its answer (frames are handled in order). */
      settle: (id: string) =>
        Effect.gen(function*() {
          yield* push({ jsonrpc: "2.0", id, method: "ping" })
          const before: Array<Sent> = []
          for (;;) {
            const sent = yield* Queue.take(out)
            if (sent.message.id === id && "result" in sent.message) return before
            before.push(sent)
          }
        }),
      /** The live fibers the engine started (requests, side work, the sweeper, a receiving fiber). */
      live: Effect.map(fibers.value, (all) => all.filter((f) => f.unsafePoll() === null)),
      close: Scope.close(scope, Exit.void)
    }
  })

/** A request's handler that waits until released or interrupted. */
const slow = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const interrupted = yield* Deferred.make<void>()
  const handler = Deferred.succeed(started, undefined).pipe(
    Effect.zipRight(Deferred.await(release)),
    Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
    Effect.as({ released: true })
  )
  return { started, release, interrupted, handler }
})

/** Waits for `effect` at most 5 s of real time (whatever the test's clock), so that a broken engine fails fast. */
const within = <A, E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("not within 5 seconds") }),
    Effect.withClock(Clock.make()),
    Effect.orDie
  )

const request = (id: string | number, method = "ping", params?: object) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params })
})

const deepObject = (depth: number): object => {
  let value: object = {}
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

// ---------- the frame limits ----------

describe("FrameLimits", () => {
  it("looksLikeResponse: an object with a result or an error and no method", () => {
    expect(JsonRpc.looksLikeResponse({ id: 1, result: {} })).toBe(true)
    expect(JsonRpc.looksLikeResponse({ error: {} })).toBe(true)
    expect(JsonRpc.looksLikeResponse({ id: 1 })).toBe(false)
    expect(JsonRpc.looksLikeResponse({ id: 1, method: "m", result: {} })).toBe(false)
    expect(JsonRpc.looksLikeResponse({ method: "m", error: {} })).toBe(false)
    expect(JsonRpc.looksLikeResponse(Object.assign([], { result: 1 }))).toBe(false)
    for (const u of [null, undefined, "result", 7, true]) expect(JsonRpc.looksLikeResponse(u)).toBe(false)
  })

  it("checkDepth: within the bound nothing; a notification dropped; a response fails its request", () => {
    expect(FrameLimits.checkDepth({ a: { b: {} } }, 3)).toBeUndefined()
    expect(FrameLimits.checkDepth({ jsonrpc: "2.0", method: "n", params: deepObject(4) }, 4)).toEqual({
      _tag: "Drop",
      reason: "nested deeper than 4 levels"
    })
    expect(FrameLimits.checkDepth({ jsonrpc: "2.0", id: 3, result: deepObject(4) }, 4)).toEqual({
      _tag: "FailRequest",
      id: 3,
      reason: "nested deeper than 4 levels"
    })
  })

  it("checkDepth: a request is answered -32602 only when its params alone are too deep, with a method and an id", () => {
    const answer = (u: unknown) => {
      const verdict = FrameLimits.checkDepth(u, 4)
      return verdict?._tag === "Answer" ? verdict.response : verdict
    }
    expect(answer({ jsonrpc: "2.0", id: 1, method: "m", params: deepObject(4) })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Invalid params: nested deeper than 4 levels" }
    })
    const invalid = (id: unknown) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32600, message: "Invalid request: nested deeper than 4 levels" }
    })
    // Another member as deep as the bound: the frame is too deep for more than its params.
    expect(answer({ jsonrpc: "2.0", id: 1, method: "m", params: {}, extra: deepObject(4) })).toEqual(invalid(1))
    expect(answer({ jsonrpc: "2.0", id: true, method: "m", params: deepObject(4) })).toEqual(invalid(null))
    expect(answer({ jsonrpc: "2.0", id: 1, method: 7, params: deepObject(4) })).toEqual(invalid(1))
    expect(answer({ jsonrpc: "2.0", method: 7, params: deepObject(4) })).toEqual(invalid(null))
    expect(answer([[[[[]]]]])).toEqual(invalid(null))
  })

  it("checkBatch: a batch over the bound is refused whole", () => {
    expect(FrameLimits.checkBatch([1, 2], 2)).toBeUndefined()
    expect(FrameLimits.checkBatch([1, 2, 3], 2)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: a batch of 3 messages, more than 2" }
    })
  })
})

// ---------- our requests ----------

describe("our requests on the wire", () => {
  it.scoped("a request goes out with its params as given, its related request as a send option, and no token", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const first = yield* Effect.fork(h.engine.request("a", { x: 1 }))
      expect(yield* h.next).toEqual({
        message: { jsonrpc: "2.0", id: 0, method: "a", params: { x: 1 } },
        options: undefined
      })
      const second = yield* Effect.fork(h.engine.request("b", undefined, { relatedRequestId: "r" }))
      expect(yield* h.next).toEqual({
        message: { jsonrpc: "2.0", id: 1, method: "b" },
        options: { relatedRequestId: "r" }
      })
      yield* h.push({ jsonrpc: "2.0", id: 0, result: { ok: 1 } })
      yield* h.push({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no b" } })
      expect(yield* Fiber.join(first)).toEqual({ ok: 1 })
      const failed = yield* Effect.flip(Fiber.join(second))
      expect(failed).toBeInstanceOf(McpError.MethodNotFound)
      expect(failed).toMatchObject({ message: "no b" })
    }))

  it.scoped("a request with progress carries its id as the token, in whatever _meta it had (an object only)", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const onProgress = () => {}
      const metas: ReadonlyArray<readonly [unknown, unknown]> = [
        [undefined, { progressToken: 0 }],
        [{ a: 1 }, { a: 1, progressToken: 1 }],
        ["str", { progressToken: 2 }],
        [[7], { progressToken: 3 }],
        [null, { progressToken: 4 }]
      ]
      for (const [meta] of metas) {
        yield* Effect.fork(h.engine.request("m", meta === undefined ? undefined : { _meta: meta }, { onProgress }))
      }
      const sent = yield* Effect.forEach(metas, () => h.next)
      expect(sent.map((s) => s.message.params._meta)).toEqual(metas.map(([, expected]) => expected))
    }))

  it.scoped("a request the transport cannot send fails with the transport's error and is forgotten", () =>
    Effect.gen(function*() {
      const h = yield* harness({ refuse: (m) => m.method === "nope" })
      const failure = yield* Effect.flip(h.engine.request("nope", {}))
      expect(failure).toEqual(new Transport.TransportError({ reason: "refused by the test" }))
      expect(h.engine.pendingCount()).toBe(0)
    }))

  it.scoped("a request that expires before it is sent is not sent; its cancellation is", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const failure = yield* Effect.flip(h.engine.request("m", {}, { timeout: 0 }))
      expect(failure).toBeInstanceOf(McpError.RequestTimeout)
      expect((yield* h.drain).map((s) => s.message)).toEqual([
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "The request timed out" } }
      ])
    }))

  it.scoped("after the connection has ended a request fails at once, unsent", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      yield* Effect.sync(() => h.inbound.end())
      expect(h.engine.isClosed()).toBe(true)
      expect(yield* Effect.flip(h.engine.request("m", {}))).toEqual(
        new ConnectionClosed({ reason: "the connection has ended" })
      )
      expect(yield* h.drain).toEqual([])
    }))
})

describe("responses to our requests", () => {
  const logsOf = (h: { readonly logged: ReadonlyArray<Logged> }) =>
    h.logged.filter((l) => l.text.includes("dropped")).map((l) => `${l.level} ${l.text}`)

  it.scoped("a late answer to a request we sent is dropped at debug level, an answer to any other id warns", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const call = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* h.push({ jsonrpc: "2.0", id: 0, result: {} })
      yield* Fiber.join(call)
      for (const id of [0, 1, -1, "0", 2]) yield* h.push({ jsonrpc: "2.0", id, result: {} })
      const failed = Transport.failed(0.5, new Transport.TransportError({ reason: "x" }))
      yield* h.pushIncoming(failed)
      expect(logsOf(h)).toEqual([
        "DEBUG effect-mcp: dropped a late response to request 0, settled already",
        "WARN effect-mcp: dropped a response for unknown request id 1",
        "WARN effect-mcp: dropped a response for unknown request id -1",
        `WARN effect-mcp: dropped a response for unknown request id ${McpError.quote("0")}`,
        "WARN effect-mcp: dropped a response for unknown request id 2",
        `WARN effect-mcp: dropped a response for request id (${failed.reason}) 0.5`
      ])
    }))

  it.scoped("a response too deep or invalid fails its request with what was wrong; for no request it warns", () =>
    Effect.gen(function*() {
      const h = yield* harness({ options: { maxDepth: 4 } })
      const deep = yield* Effect.fork(h.engine.request("m", {}))
      const invalid = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* h.next
      yield* h.push({ jsonrpc: "2.0", id: 0, result: deepObject(4) })
      yield* h.push({ jsonrpc: "2.0", id: 1, result: 5 })
      expect(yield* Effect.flip(Fiber.join(deep))).toEqual(
        new Transport.TransportError({ reason: "the response was refused: nested deeper than 4 levels" })
      )
      expect(yield* Effect.flip(Fiber.join(invalid))).toEqual(
        new Transport.TransportError({
          reason:
            "the response was invalid: Invalid request: result: Expected { readonly [x: string]: unknown }, actual 5"
        })
      )
      yield* h.push({ jsonrpc: "2.0", id: 9, result: deepObject(4) })
      yield* h.push({ jsonrpc: "2.0", id: 9, result: 5 })
      expect(logsOf(h)).toEqual([
        "WARN effect-mcp: dropped a response for request id (the response was nested deeper than 4 levels) 9",
        "WARN effect-mcp: dropped a response for request id (an invalid response: Invalid request: result: Expected { readonly [x: string]: unknown }, actual 5) 9"
      ])
      expect(yield* h.drain).toEqual([])
    }))

  it.scoped("a response the transport could not get fails its request with the transport's error, or a dropped one", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const a = yield* Effect.fork(h.engine.request("m", {}))
      const b = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* h.next
      const expired = new Transport.SessionExpired({ sessionId: "s", reason: "gone" })
      yield* h.pushIncoming(Transport.failed(0, expired))
      yield* h.pushIncoming(Transport.malformed("a line over 1 KiB", 1))
      expect(yield* Effect.flip(Fiber.join(a))).toBe(expired)
      expect(yield* Effect.flip(Fiber.join(b))).toEqual(
        new Transport.TransportError({ reason: "the response was dropped: a line over 1 KiB" })
      )
      // A frame that could not be read and answers nothing gets -32700.
      yield* h.pushIncoming(Transport.malformed("Unexpected token"))
      expect((yield* h.drain).map((s) => s.message)).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: Unexpected token" } }
      ])
    }))
})

describe("progress", () => {
  it.scoped("only numbers are progress; a total and a message come when they are a number and a string", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const seen: Array<unknown> = []
      const call = yield* Effect.fork(h.engine.request("m", {}, { onProgress: (p) => void seen.push(p) }))
      yield* h.next
      const progress = (params?: object) =>
        h.push({ jsonrpc: "2.0", method: "notifications/progress", ...(params === undefined ? {} : { params }) })
      yield* progress({ progressToken: 0, progress: 1 })
      yield* progress({ progressToken: 0, progress: 2, total: 10, message: "two" })
      yield* progress({ progressToken: 0, progress: 3, total: "10", message: 3 })
      yield* progress({ progressToken: 0, progress: "4" })
      yield* progress({ progressToken: "0", progress: 5 })
      yield* progress({ progressToken: 99, progress: 6 })
      yield* progress()
      yield* h.push({ jsonrpc: "2.0", id: 0, result: {} })
      yield* Fiber.join(call)
      expect(seen).toEqual([{ progress: 1 }, { progress: 2, total: 10, message: "two" }, { progress: 3 }])
      expect(h.logged.filter((l) => l.level === "ERROR")).toEqual([])
      expect(h.logged.map((l) => l.text)).toContain("effect-mcp: progress for unknown token 99")
    }))

  it.scoped("progress resets the timeout only when asked to, and not for a request that asked for no progress", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const onProgress = () => {}
      const resets = yield* Effect.fork(h.engine.request("m", {}, { timeout: 1_000, onProgress }))
      const keeps = yield* Effect.fork(
        h.engine.request("m", {}, { timeout: 1_000, onProgress, resetTimeoutOnProgress: false })
      )
      const none = yield* Effect.fork(h.engine.request("m", {}, { timeout: 1_000 }))
      yield* TestClock.adjust(600)
      for (const token of [0, 1, 2]) {
        yield* h.push({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1 }
        })
      }
      yield* TestClock.adjust(500)
      expect(resets.unsafePoll()).toBeNull()
      expect(Option.map(Option.fromNullable(keeps.unsafePoll()), Exit.isFailure)).toEqual(Option.some(true))
      expect(Option.map(Option.fromNullable(none.unsafePoll()), Exit.isFailure)).toEqual(Option.some(true))
      expect(h.logged.filter((l) => l.level === "ERROR")).toEqual([])
    }))
})

describe("timeouts", () => {
  it.scoped("a timed-out request fails naming its method, id and wait, and is cancelled with its related request", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_000_000)
      const h = yield* harness()
      const call = yield* Effect.fork(h.engine.request("slow/thing", {}, { timeout: 250, relatedRequestId: 7 }))
      yield* h.next
      yield* TestClock.adjust(260)
      const failure = yield* Effect.flip(Fiber.join(call))
      expect(failure).toBeInstanceOf(McpError.RequestTimeout)
      expect(failure.message).toMatch(/^Request slow\/thing \(id 0\) timed out after 2[56]\d ms$/)
      expect(yield* h.next).toEqual({
        message: {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 0, reason: "The request timed out" }
        },
        options: { relatedRequestId: 7 }
      })
    }))

  it.scoped("maxTotalTimeout counts from when the request was made, on a clock far from zero", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_750_000_000_000)
      const h = yield* harness()
      const call = yield* Effect.fork(
        h.engine.request("m", {}, { timeout: 10_000, maxTotalTimeout: 1_000, onProgress: () => {} })
      )
      yield* h.next
      yield* TestClock.adjust(900)
      expect(call.unsafePoll()).toBeNull()
      yield* TestClock.adjust(200)
      expect(yield* Effect.flip(Fiber.join(call))).toBeInstanceOf(McpError.RequestTimeout)
    }))

  it.scoped("a short deadline after an expired one still fires on time, while a long one waits", () =>
    Effect.gen(function*() {
      const h = yield* harness({ options: { timeoutResolution: 0 } })
      const first = yield* Effect.fork(h.engine.request("m", {}, { timeout: 5 }))
      const short = yield* Effect.fork(h.engine.request("m", {}, { timeout: 30 }))
      const long = yield* Effect.fork(h.engine.request("m", {}, { timeout: 1_000 }))
      yield* TestClock.adjust(5)
      expect(first.unsafePoll()).not.toBeNull()
      expect(short.unsafePoll()).toBeNull()
      yield* TestClock.adjust(25)
      expect(short.unsafePoll()).not.toBeNull()
      expect(long.unsafePoll()).toBeNull()
    }))

  it.scoped("a request interrupted while it waits is cancelled with its reason and related request", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      const call = yield* Effect.fork(h.engine.request("m", {}, { relatedRequestId: "r" }))
      yield* h.next
      yield* Fiber.interrupt(call)
      expect(yield* h.next).toEqual({
        message: {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 0, reason: "The request was cancelled" }
        },
        options: { relatedRequestId: "r" }
      })
      expect(h.engine.pendingCount()).toBe(0)
    }))
})

// ---------- the peer's requests and notifications ----------

describe("the peer's requests", () => {
  it.scoped("an answer is sent with its request's id as the related request; one that cannot be sent is -32603", () =>
    Effect.gen(function*() {
      const h = yield* harness({
        onRequest: (r) => Effect.succeed(r.method === "big" ? { big: true } : {}),
        refuse: (m) => m.result?.big === true
      })
      yield* h.push(request(5))
      expect(yield* h.next).toEqual({
        message: { jsonrpc: "2.0", id: 5, result: {} },
        options: { relatedRequestId: 5 }
      })
      yield* h.push(request(6, "big"))
      expect(yield* h.next).toEqual({
        message: { jsonrpc: "2.0", id: 6, error: { code: -32603, message: "Internal error" } },
        options: { relatedRequestId: 6 }
      })
      expect(h.logged.map((l) => l.text)).toContain(
        "effect-mcp: the answer to a request could not be sent, -32603 instead: refused by the test"
      )
    }))

  it.scoped("a failure is the handler's error, a defect -32603 (logged), and a handler that interrupts itself no answer", () =>
    Effect.gen(function*() {
      const h = yield* harness({
        onRequest: (r) =>
          r.method === "fail" ? Effect.fail("no") : r.method === "die" ? Effect.die("bug") : r.method === "stop"
            ? Effect.interrupt
            : Effect.succeed({})
      })
      yield* h.push(request(1, "fail"))
      yield* h.push(request(2, "die"))
      yield* h.push(request(3, "stop"))
      const before = yield* h.settle("after")
      expect(before.map((s) => s.message)).toEqual([
        { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "no" } },
        { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error" } }
      ])
      expect(h.logged.filter((l) => l.level === "ERROR").map((l) => l.text.split(" ").slice(0, 5).join(" "))).toEqual([
        "effect-mcp: the handler of die"
      ])
    }))

  it.scoped("a duplicate id in flight is refused with its own message; the first request runs on", () =>
    Effect.gen(function*() {
      const s = yield* slow
      const h = yield* harness({ onRequest: (r) => r.method === "slow" ? s.handler : Effect.succeed({}) })
      yield* h.push(request(1, "slow"))
      yield* Deferred.await(s.started)
      expect(h.engine.inFlight()).toBe(1)
      yield* h.push(request(1, "slow"))
      expect((yield* h.next).message).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "Request id 1 is already in use by a request in flight" }
      })
      yield* Deferred.succeed(s.release, undefined)
      expect((yield* h.next).message).toEqual({ jsonrpc: "2.0", id: 1, result: { released: true } })
      expect(yield* Deferred.isDone(s.interrupted)).toBe(false)
    }))

  it.scoped("a cancellation without params, or naming no request in flight, is ignored quietly", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      yield* h.push({ jsonrpc: "2.0", method: "notifications/cancelled" })
      yield* h.push({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { id: 1 } } })
      expect(yield* h.settle("after")).toEqual([])
      expect(h.logged.filter((l) => l.level === "ERROR")).toEqual([])
    }))

  it.scoped("without a concurrency bound, requests run at once side by side", () =>
    Effect.gen(function*() {
      const handlers = yield* Effect.forEach([1, 2, 3], () => slow)
      const h = yield* harness({ onRequest: (r) => handlers[Number(r.id)]!.handler })
      for (const id of [0, 1, 2]) yield* h.push(request(id, "slow"))
      yield* within(Effect.forEach(handlers, (s) => Deferred.await(s.started)))
      expect(h.engine.inFlight()).toBe(3)
    }))

  it.scoped("a frame whose handling throws is that request's -32603 (logged), and no answer for a notification", () =>
    Effect.gen(function*() {
      const h = yield* harness({
        onRequest: (r) => {
          if (r.method === "throw") throw new Error("thrown while building the handler")
          return Effect.succeed({})
        },
        onNotification: (n) => {
          if (n.method === "throw") throw new Error("thrown by a notification")
          return Effect.void
        }
      })
      yield* h.push(request("t", "throw"))
      yield* h.push({ jsonrpc: "2.0", method: "throw" })
      const before = yield* h.settle("after")
      expect(before.map((s) => s.message)).toEqual([
        { jsonrpc: "2.0", id: "t", error: { code: -32603, message: "Internal error" } }
      ])
      const errors = h.logged.filter((l) => l.level === "ERROR").map((l) => l.text)
      expect(errors).toHaveLength(2)
      expect(errors[0]).toMatch(/^effect-mcp: a frame could not be handled .*thrown while building the handler/s)
      expect(errors[1]).toMatch(/^effect-mcp: a frame could not be handled .*thrown by a notification/s)
    }))

  it.scoped("a response or a batch whose reading throws is logged and never answered, even with a readable id", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      // Reading `result` throws while the envelope is checked: the frame looks like a response (id 0) all the same.
      const hostile = {
        jsonrpc: "2.0",
        id: 0,
        get result(): unknown {
          throw new Error("thrown while reading a response")
        }
      }
      yield* h.push(hostile)
      yield* h.push([{ jsonrpc: "2.0", id: 1, method: "ping" }, hostile])
      expect(yield* h.settle("after")).toEqual([])
      const errors = h.logged.filter((l) => l.level === "ERROR").map((l) => l.text)
      expect(errors.length).toBeGreaterThan(0)
      expect(errors.every((e) => e.startsWith("effect-mcp: a frame could not be handled"))).toBe(true)
    }))
})

describe("the peer's notifications", () => {
  it.scoped("every notification but cancellation and progress reaches the session; a failing one is logged", () =>
    Effect.gen(function*() {
      const h = yield* harness({ onNotification: (n) => n.method === "bad" ? Effect.die("broken") : Effect.void })
      yield* h.push({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* h.push({ jsonrpc: "2.0", method: "bad" })
      yield* h.push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
      yield* h.push({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })
      expect(h.notified).toEqual(["notifications/initialized", "bad"])
      expect(h.logged.filter((l) => l.level === "ERROR").map((l) => l.text.split(" ").slice(0, 3).join(" "))).toEqual([
        "effect-mcp: notification bad"
      ])
    }))

  it.scoped("a notification nested too deep is dropped, at debug level", () =>
    Effect.gen(function*() {
      const h = yield* harness({ options: { maxDepth: 4 } })
      yield* h.push({ jsonrpc: "2.0", method: "n", params: deepObject(4) })
      expect(h.notified).toEqual([])
      expect(h.logged).toContainEqual({
        level: "DEBUG",
        text: "effect-mcp: dropped a notification nested deeper than 4 levels"
      })
      expect(yield* h.settle("after")).toEqual([])
    }))
})

// ---------- batches ----------

describe("batches", () => {
  it.scoped("an empty batch, and a batch from a peer that may not send one, are refused with their own messages", () =>
    Effect.gen(function*() {
      const h = yield* harness({ acceptsBatch: false })
      yield* h.push([])
      yield* h.push([request(1)])
      expect((yield* h.drain).map((s) => s.message)).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: empty batch" } },
        {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32600,
            message: "Invalid request: JSON-RPC batches are only accepted from revision 2025-03-26 peers"
          }
        }
      ])
    }))

  it.scoped("each request of a batch is answered in one array: invalid ones -32600, deep ones refused, the rest run", () =>
    Effect.gen(function*() {
      const h = yield* harness({ options: { maxDepth: 4 } })
      yield* h.push([
        request(1),
        { jsonrpc: "2.0", id: 2, method: 7 },
        { jsonrpc: "2.0", method: "n", params: deepObject(4) },
        { jsonrpc: "2.0", id: 9, result: 5 },
        request(3, "m", deepObject(4)),
        { jsonrpc: "2.0", method: "notifications/initialized" }
      ])
      const answer = yield* h.next
      expect(answer.message).toEqual([
        { jsonrpc: "2.0", id: 1, result: {} },
        {
          jsonrpc: "2.0",
          id: 2,
          error: { code: -32600, message: "Invalid request: method: Expected string, actual 7" }
        },
        { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Invalid params: nested deeper than 4 levels" } }
      ])
      expect(h.notified).toEqual(["notifications/initialized"])
      expect(yield* h.settle("after")).toEqual([])
    }))

  it.scoped("a batch's id already in flight is refused; a cancelled request of a batch leaves the others' answers", () =>
    Effect.gen(function*() {
      const s = yield* slow
      const h = yield* harness({ onRequest: (r) => r.method === "slow" ? s.handler : Effect.succeed({}) })
      yield* h.push(request(1, "slow"))
      yield* Deferred.await(s.started)
      yield* h.push([request(1), request(2)])
      expect((yield* h.next).message).toEqual([
        { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Request id 1 is already in use" } },
        { jsonrpc: "2.0", id: 2, result: {} }
      ])
      expect(yield* Deferred.isDone(s.interrupted)).toBe(false)
      const t = yield* slow
      const h2 = yield* harness({ onRequest: (r) => r.method === "slow" ? t.handler : Effect.succeed({}) })
      yield* h2.push([request("a", "slow"), request("b")])
      yield* Deferred.await(t.started)
      yield* h2.push({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } })
      expect((yield* h2.next).message).toEqual([{ jsonrpc: "2.0", id: "b", result: {} }])
      // A batch whose every request was cancelled gets no answer at all.
      const u = yield* slow
      const h3 = yield* harness({ onRequest: (r) => r.method === "slow" ? u.handler : Effect.succeed({}) })
      yield* h3.push([request("c", "slow")])
      yield* Deferred.await(u.started)
      yield* h3.push({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c" } })
      yield* within(Deferred.await(u.interrupted))
      expect(yield* h3.settle("after")).toEqual([])
    }))
})

// ---------- the end ----------

describe("the end of a connection", () => {
  it.scoped("the peer going away fails what waits, interrupts what runs, and completes `closed`", () =>
    Effect.gen(function*() {
      const s = yield* slow
      const h = yield* harness({ onRequest: () => s.handler })
      const closed = yield* Effect.fork(h.engine.closed)
      const alsoClosed = yield* Effect.fork(h.engine.closed)
      const call = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* h.push(request(1, "slow"))
      yield* Deferred.await(s.started)
      expect(h.engine.isClosed()).toBe(false)
      yield* Effect.sync(() => h.inbound.end())
      expect(h.engine.isClosed()).toBe(true)
      expect(yield* Effect.flip(Fiber.join(call))).toEqual(
        new ConnectionClosed({ reason: "the peer closed the connection" })
      )
      yield* within(Deferred.await(s.interrupted))
      yield* within(Fiber.join(closed))
      yield* within(Fiber.join(alsoClosed))
      yield* h.engine.closed
    }))

  it.scoped("the connection's scope closing fails what waits with that reason, and frames after it are not read", () =>
    Effect.gen(function*() {
      let deliver: Transport.Deliver | undefined
      const h = yield* harness()
      const call = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* h.close
      expect(yield* Effect.flip(Fiber.join(call))).toEqual(
        new ConnectionClosed({ reason: "the connection's scope closed" })
      )
      // A transport that hands a frame over after the end: nothing reads it.
      const seen: Array<string> = []
      const h2 = yield* harness({
        onRequest: (r) => Effect.sync(() => void seen.push(r.method)).pipe(Effect.as({})),
        receive: () => (d) => Effect.sync(() => void (deliver = d))
      })
      yield* Effect.yieldNow()
      expect(h2.engine.isClosed()).toBe(true)
      deliver?.(Transport.frame(request(1, "late")))
      expect(seen).toEqual([])
    }))

  it.scoped("a transport that fails ends the connection with its reason, exit code and stderr", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<Transport.TransportError>()
      const h = yield* harness({ receive: () => () => Effect.flatMap(Deferred.await(gate), Effect.fail) })
      const call = yield* Effect.fork(h.engine.request("m", {}))
      yield* h.next
      yield* Deferred.succeed(gate, new Transport.TransportError({ reason: "boom", exitCode: 3, stderrTail: "tail" }))
      expect(yield* Effect.flip(Fiber.join(call))).toEqual(
        new ConnectionClosed({ reason: "the transport failed: boom", exitCode: 3, stderrTail: "tail" })
      )
      const gate2 = yield* Deferred.make<Transport.TransportError>()
      const h2 = yield* harness({ receive: () => () => Effect.flatMap(Deferred.await(gate2), Effect.fail) })
      const call2 = yield* Effect.fork(h2.engine.request("m", {}))
      yield* h2.next
      yield* Deferred.succeed(gate2, new Transport.TransportError({ reason: "plain" }))
      const closed = yield* Effect.flip(Fiber.join(call2))
      expect(closed).toEqual(new ConnectionClosed({ reason: "the transport failed: plain" }))
      expect(Object.keys(closed)).not.toContain("exitCode")
      expect(Object.keys(closed)).not.toContain("stderrTail")
    }))

  it.scoped("a receiving transport that dies or is interrupted ends the connection saying so", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const dies = yield* harness({ receive: () => () => Effect.zipRight(Deferred.await(gate), Effect.die("kaput")) })
      const interrupted = yield* harness({
        receive: () => () => Effect.zipRight(Deferred.await(gate), Effect.interrupt)
      })
      const a = yield* Effect.fork(dies.engine.request("m", {}))
      const b = yield* Effect.fork(interrupted.engine.request("m", {}))
      yield* dies.next
      yield* interrupted.next
      yield* Deferred.succeed(gate, undefined)
      const died = yield* Effect.flip(Fiber.join(a))
      expect(died).toBeInstanceOf(ConnectionClosed)
      expect(died).toMatchObject({ reason: expect.stringMatching(/^the transport failed: .*kaput/s) })
      expect(yield* Effect.flip(Fiber.join(b))).toEqual(
        new ConnectionClosed({ reason: "the connection was interrupted" })
      )
    }))

  it.scoped("an engine whose scope closes before it listens closes cleanly", () =>
    Effect.gen(function*() {
      const inbound = yield* Transport.makeInbound
      const transport: Transport.TransportService = {
        listen: inbound.listen,
        receive: inbound.receive,
        send: () => Effect.void
      }
      const handlers: Engine.Handlers<never> = {
        onRequest: () => Effect.succeed({}),
        toWire: () => ({ code: 0, message: "" }),
        onNotification: () => Effect.void,
        acceptsBatch: () => true
      }
      const exit = yield* Effect.exit(
        Effect.scoped(Engine.make(handlers).pipe(Effect.provideService(Transport.Transport, transport)))
      )
      expect(Exit.isSuccess(exit)).toBe(true)
    }))

  it.scoped("an idle connection holds no fiber: the sweeper stops when nothing waits, side work ends", () =>
    Effect.gen(function*() {
      const h = yield* harness()
      expect(yield* h.live).toEqual([])
      const call = yield* Effect.fork(h.engine.request("m", {}, { timeout: 1_000 }))
      yield* h.next
      const call2 = yield* Effect.fork(h.engine.request("m", {}, { timeout: 100 }))
      yield* h.next
      yield* h.push({ jsonrpc: "2.0", id: 0, result: {} })
      yield* Fiber.join(call)
      yield* TestClock.adjust(200)
      expect(Either.isLeft(yield* Effect.either(Fiber.join(call2)))).toBe(true)
      yield* TestClock.adjust(200)
      expect(yield* h.live).toEqual([])
    }))

  it.scoped("side work still running when the connection ends is interrupted", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const h = yield* harness({
        onNotification: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      yield* h.push({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* Deferred.await(started)
      expect((yield* h.live).length).toBe(1)
      yield* h.close
      yield* within(Deferred.await(interrupted))
    }))
})
