import { ClientHandlers, Errors, McpClient, McpServer, RequestContext } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { connect, makeRawServer, rawPeer, rawServer } from "./helpers.js"

const info = { name: "engine-test", version: "1.0.0" }

const Echo = McpServer.tool({
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

/** A 2025-11-25 client connected to a raw server (the handshake accepted). */
const connectedTo = (server: Effect.Effect.Success<ReturnType<typeof makeRawServer>>) =>
  Effect.gen(function*() {
    const connecting = yield* Effect.fork(
      McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(Effect.provide(server.layer))
    )
    yield* server.acceptHandshake
    return yield* Fiber.join(connecting)
  })

/**
 * Waits for `effect` (a handler's interruption, say) for at most 5 s of real time, whatever the test's clock, and
 * fails naming `what` after that: a cancellation that is ignored fails its test at once, not at the 60 s test timeout.
 */
const within = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`${what}: not within 5 seconds`) }),
    Effect.withClock(Clock.make()),
    Effect.orDie
  )

/** A tool `slow` that waits until released or interrupted, and the Deferreds each call's `tag` completes. */
const slowTool = Effect.gen(function*() {
  const calls = new Map<string, Record<"started" | "release" | "interrupted", Deferred.Deferred<void>>>()
  const of = (tag: string) =>
    Effect.gen(function*() {
      const known = calls.get(tag)
      if (known !== undefined) return known
      const made = {
        started: yield* Deferred.make<void>(),
        release: yield* Deferred.make<void>(),
        interrupted: yield* Deferred.make<void>()
      }
      calls.set(tag, made)
      return made
    })
  const Slow = McpServer.tool({
    name: "slow",
    input: Schema.Struct({ tag: Schema.String }),
    handler: ({ tag }) =>
      Effect.flatMap(of(tag), (call) =>
        Deferred.succeed(call.started, undefined).pipe(
          Effect.zipRight(Deferred.await(call.release)),
          Effect.onInterrupt(() => Deferred.succeed(call.interrupted, undefined)),
          Effect.as(`released ${tag}`)
        ))
  })
  return { server: Slow.pipe(Layer.provideMerge(McpServer.layer(info))), of }
})

const slowCall = (id: string | number, tag: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "slow", arguments: { tag } }
})

const cancelNotification = (requestId: string | number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "user" }
})

describe("cancellation", () => {
  for (const id of [7, "call-7", "", "7"]) {
    it.scoped(
      `notifications/cancelled for request id ${
        JSON.stringify(id)
      } interrupts the handler, runs its finalizer, and sends no response`,
      () =>
        Effect.gen(function*() {
          const slow = yield* slowTool
          const call = yield* slow.of("a")
          const peer = yield* rawPeer(slow.server)
          yield* peer.handshake()
          yield* peer.send(slowCall(id, "a"))
          yield* within("the handler started", Deferred.await(call.started))
          yield* peer.send(cancelNotification(id))
          yield* within("the handler was interrupted", Deferred.await(call.interrupted))
          // The next thing the server says is the answer to a ping: the cancelled request got nothing.
          yield* peer.send({ jsonrpc: "2.0", id: 8, method: "ping" })
          expect(yield* within("the ping's answer", peer.next)).toEqual({ jsonrpc: "2.0", id: 8, result: {} })
        })
    )
  }

  it.scoped("a cancellation names its request exactly: \"7\" is not 7, and an unknown id cancels nothing", () =>
    Effect.gen(function*() {
      const slow = yield* slowTool
      const asString = yield* slow.of("string")
      const asNumber = yield* slow.of("number")
      const peer = yield* rawPeer(slow.server)
      yield* peer.handshake()
      yield* peer.send(slowCall("7", "string"))
      yield* peer.send(slowCall(7, "number"))
      yield* within(
        "both handlers started",
        Effect.zip(Deferred.await(asString.started), Deferred.await(asNumber.started))
      )
      yield* peer.send(cancelNotification("7"))
      yield* peer.send(cancelNotification("unknown"))
      yield* peer.send(cancelNotification(70))
      yield* within("the handler of \"7\" was interrupted", Deferred.await(asString.interrupted))
      // 7 was left alone: released, it answers (and the string "7" got no answer before it).
      yield* Deferred.succeed(asNumber.release, undefined)
      expect(yield* within("the answer to 7", peer.next)).toEqual({
        jsonrpc: "2.0",
        id: 7,
        result: { content: [{ type: "text", text: "released number" }] }
      })
      expect(yield* Deferred.isDone(asNumber.interrupted)).toBe(false)
    }))

  it.scoped("interrupting a client call sends notifications/cancelled and the server handler stops", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<void>()
      const Slow = McpServer.tool({
        name: "slow",
        input: Schema.Struct({}),
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(finalized, undefined))
          )
      })
      const client = yield* connect(Slow.pipe(Layer.provideMerge(McpServer.layer(info))))
      const call = yield* Effect.fork(client.callTool("slow", {}))
      yield* within("the handler started", Deferred.await(started))
      yield* Fiber.interrupt(call)
      yield* within("the handler was interrupted", Deferred.await(finalized))
    }))
  it.scoped("a cancelled call aborts its handler's signal; a call that finished leaves it alone", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const aborted = yield* Deferred.make<void>()
      const signals: Array<AbortSignal> = []
      const Fetching = McpServer.tool({
        name: "fetching",
        input: Schema.Struct({ hang: Schema.Boolean }),
        handler: ({ hang }) =>
          Effect.gen(function*() {
            const { signal } = yield* RequestContext.RequestContext
            signals.push(signal)
            if (!hang) return "done"
            signal.addEventListener("abort", () => Deferred.unsafeDone(aborted, Exit.void))
            yield* Deferred.succeed(started, undefined)
            return yield* Effect.never
          })
      })
      const client = yield* connect(Fetching.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* client.callTool("fetching", { hang: false })
      const call = yield* Effect.fork(client.callTool("fetching", { hang: true }))
      yield* within("the handler started", Deferred.await(started))
      expect(signals[1]?.aborted).toBe(false)
      yield* Fiber.interrupt(call)
      yield* within("the handler's signal was aborted", Deferred.await(aborted))
      expect(signals.map((s) => s.aborted)).toEqual([false, true])
    }))

  it.scoped("a call interrupted while its request is still being sent is forgotten and cancelled on the wire", () =>
    Effect.gen(function*() {
      const sending = yield* Deferred.make<number>()
      // The transport holds every tools/call send (as a transport with a full buffer would) and lets the rest through.
      const server = yield* makeRawServer((m) =>
        m.method === "tools/call" ? Deferred.succeed(sending, m.id).pipe(Effect.zipRight(Effect.never)) : Effect.void
      )
      const client = yield* connectedTo(server)
      const call = yield* Effect.fork(client.callTool("anything", {}))
      const id = yield* Deferred.await(sending)
      expect(client.stats().pending).toBe(1)
      yield* Fiber.interrupt(call)
      const cancelled = yield* server.next
      expect(cancelled).toMatchObject({ method: "notifications/cancelled", params: { requestId: id } })
      expect(client.stats().pending).toBe(0)
    }))

  it.scoped("a call interrupted while it waits for its response is forgotten and cancelled on the wire; a late answer is dropped", () =>
    Effect.gen(function*() {
      const server = yield* makeRawServer()
      const client = yield* connectedTo(server)
      const call = yield* Effect.fork(client.callTool("anything", {}))
      const request = yield* server.next
      expect(request).toMatchObject({ method: "tools/call" })
      expect(client.stats().pending).toBe(1)
      yield* Fiber.interrupt(call)
      expect(yield* server.next).toMatchObject({
        method: "notifications/cancelled",
        params: { requestId: request.id }
      })
      expect(client.stats().pending).toBe(0)
      // The answer arriving after all is dropped, and the client carries on.
      yield* server.send({ jsonrpc: "2.0", id: request.id, result: { content: [] } })
      const next = yield* Effect.fork(client.callTool("anything", {}))
      const second = yield* server.next
      yield* server.send({ jsonrpc: "2.0", id: second.id, result: { content: [{ type: "text", text: "ok" }] } })
      expect((yield* Fiber.join(next)).content).toEqual([{ type: "text", text: "ok" }])
      expect(client.stats().pending).toBe(0)
    }))

  it.scoped("a late answer to a settled request is dropped at debug level; an answer to no request of ours warns", () =>
    Effect.gen(function*() {
      const logged: Array<{ readonly level: string; readonly text: string }> = []
      const collecting = Logger.make(({ logLevel, message }) => {
        const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
        if (text.includes("dropped")) logged.push({ level: logLevel.label, text })
      })
      const lateId = yield* Effect.gen(function*() {
        const server = yield* makeRawServer()
        const client = yield* connectedTo(server)
        const call = yield* Effect.fork(client.callTool("anything", {}))
        const request = yield* server.next
        yield* Fiber.interrupt(call)
        expect(yield* server.next).toMatchObject({ method: "notifications/cancelled" })
        // The answer crossed the cancellation on the wire; then an answer to an id this client never used.
        yield* server.send({ jsonrpc: "2.0", id: request.id, result: { content: [] } })
        yield* server.send({ jsonrpc: "2.0", id: 424242, result: {} })
        // Frames are handled in order: once a later call is answered, both were.
        const next = yield* Effect.fork(client.callTool("anything", {}))
        const second = yield* server.next
        yield* server.send({ jsonrpc: "2.0", id: second.id, result: { content: [] } })
        yield* Fiber.join(next)
        return request.id
      }).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, collecting)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      expect(logged).toEqual([
        { level: "DEBUG", text: `effect-mcp: dropped a late response to request ${lateId}, settled already` },
        { level: "WARN", text: "effect-mcp: dropped a response for unknown request id 424242" }
      ])
    }))

  it.scoped("calls that settle leave no observer on their caller's fiber", () =>
    Effect.gen(function*() {
      const server = yield* makeRawServer()
      const client = yield* connectedTo(server)
      yield* Effect.fork(Effect.forever(Effect.flatMap(server.next, (m) =>
        m.method === "tools/call"
          ? m.params.name === "silent" ? Effect.void : m.params.name === "fails"
            ? server.send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "no" } })
            : server.send({ jsonrpc: "2.0", id: m.id, result: { content: [] } })
          : Effect.void)))
      // The number of observers on a fiber is not public: read the runtime's own field, and fail loudly if Effect
      // ever renames it rather than pass without looking.
      const observers = Effect.withFiberRuntime((fiber) =>
        Effect.sync(() => {
          const list: unknown = Reflect.get(fiber, "_observers")
          if (!Array.isArray(list)) throw new Error("FiberRuntime._observers is gone: update this test")
          return list.length
        })
      )
      const before = yield* observers
      // Each call waits for its answer (the raw server answers from another fiber), so each one's observer is added
      // before the send and must be gone once it settles: answered, failed, or timed out.
      for (let i = 0; i < 50; i++) yield* client.callTool("anything", {})
      for (let i = 0; i < 20; i++) yield* Effect.flip(client.callTool("fails", {}))
      const waitingOne = Effect.suspend(() => client.stats().pending === 0 ? Effect.fail("none") : Effect.void).pipe(
        Effect.retry({ while: () => true })
      )
      yield* Effect.fork(Effect.zipRight(waitingOne, TestClock.adjust("1 second")))
      expect((yield* Effect.flip(client.callTool("silent", {}, { timeout: "10 millis" })))._tag).toBe("RequestTimeout")
      expect(yield* observers).toBe(before)
    }))
})

describe("timeouts", () => {
  it.scoped("a timed-out call fails with RequestTimeout and the server sees the cancellation", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const cancelled = yield* Deferred.make<void>()
      const Slow = McpServer.tool({
        name: "slow",
        input: Schema.Struct({}),
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(cancelled, undefined))
          )
      })
      const client = yield* connect(Slow.pipe(Layer.provideMerge(McpServer.layer(info))))
      const call = yield* Effect.fork(Effect.either(client.callTool("slow", {}, { timeout: "5 seconds" })))
      yield* within("the handler started", Deferred.await(started))
      yield* TestClock.adjust("4 seconds")
      expect(call.unsafePoll()).toBeNull()
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(call)
      expect(Either.isLeft(result) && result.left._tag).toBe("RequestTimeout")
      yield* within("the handler was interrupted", Deferred.await(cancelled))
    }))

  it.scoped("a short timeout fires on time while a long one waits; the long one still fires at its deadline", () =>
    Effect.gen(function*() {
      const Slow = McpServer.tool({ name: "slow", input: Schema.Struct({}), handler: () => Effect.never })
      const client = yield* connect(Slow.pipe(Layer.provideMerge(McpServer.layer(info))))
      const long = yield* Effect.fork(Effect.either(client.callTool("slow", {}, { timeout: "1 second" })))
      yield* TestClock.adjust("5 millis")
      const short = yield* Effect.fork(Effect.either(client.callTool("slow", {}, { timeout: "20 millis" })))
      yield* TestClock.adjust("19 millis")
      expect(short.unsafePoll()).toBeNull()
      yield* TestClock.adjust("2 millis")
      const failed = yield* Fiber.join(short)
      expect(Either.isLeft(failed) && failed.left._tag).toBe("RequestTimeout")
      yield* TestClock.adjust("960 millis")
      expect(long.unsafePoll()).toBeNull()
      yield* TestClock.adjust("20 millis")
      const late = yield* Fiber.join(long)
      expect(Either.isLeft(late) && late.left._tag).toBe("RequestTimeout")
    }))

  it.scoped("progress resets the timeout; maxTotalTimeout caps it", () =>
    Effect.gen(function*() {
      const Ticker = McpServer.tool({
        name: "ticker",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            for (let i = 1; i <= 5; i++) {
              yield* Effect.sleep("3 seconds")
              yield* RequestContext.progress(i, 5)
            }
            return "done"
          })
      })
      const client = yield* connect(Ticker.pipe(Layer.provideMerge(McpServer.layer(info))))
      const seen = yield* Ref.make(0)
      const ok = yield* Effect.fork(
        client.callTool("ticker", {}, {
          timeout: "4 seconds",
          onProgress: () => Effect.runSync(Ref.update(seen, (n) => n + 1))
        })
      )
      for (let i = 0; i < 16; i++) yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(ok)
      expect(result.content).toEqual([{ type: "text", text: "done" }])
      expect(yield* Ref.get(seen)).toBe(5)

      const capped = yield* Effect.fork(
        Effect.either(
          client.callTool("ticker", {}, { timeout: "4 seconds", maxTotalTimeout: "7 seconds", onProgress: () => {} })
        )
      )
      for (let i = 0; i < 8; i++) yield* TestClock.adjust("1 second")
      const failed = yield* Fiber.join(capped)
      expect(Either.isLeft(failed) && failed.left._tag).toBe("RequestTimeout")
    }))
})

describe("progress", () => {
  it.scoped("a call with progress is a Stream of updates in order, ending with the result", () =>
    Effect.gen(function*() {
      const Steps = McpServer.tool({
        name: "steps",
        input: Schema.Struct({ n: Schema.Number }),
        handler: ({ n }) =>
          Effect.gen(function*() {
            for (let i = 1; i <= n; i++) yield* RequestContext.progress(i, n, `step ${i}`)
            return `did ${n}`
          })
      })
      const client = yield* connect(Steps.pipe(Layer.provideMerge(McpServer.layer(info))))
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(client.callToolStream("steps", { n: 20 })))
      expect(events.length).toBe(21)
      expect(events.slice(0, 20).map((e) => (e._tag === "Progress" ? e.progress.progress : -1))).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1)
      )
      expect(events[0]).toEqual({ _tag: "Progress", progress: { progress: 1, total: 20, message: "step 1" } })
      const last = events[20]!
      expect(last._tag === "Result" && last.result.content).toEqual([{ type: "text", text: "did 20" }])
    }))

  it.live(
    "a consumer behind a flood of progress keeps only the newest updates, and always gets the result",
    () =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        const Flood = McpServer.tool({
          name: "flood",
          input: Schema.Struct({ n: Schema.Number }),
          handler: ({ n }) =>
            Effect.gen(function*() {
              for (let i = 1; i <= n; i++) yield* RequestContext.progress(i, n)
              yield* Deferred.succeed(done, undefined)
              return `did ${n}`
            })
        })
        const client = yield* connect(Flood.pipe(Layer.provideMerge(McpServer.layer(info))))
        // 50,000 updates arrive with nobody reading.
        const events = yield* client.callToolStream("flood", { n: 50_000 }).pipe(
          Stream.toPull,
          Effect.flatMap((pull) =>
            Effect.gen(function*() {
              // the first pull sends the call; then nobody reads until the server is done
              const out: Array<McpClient.CallEvent<unknown>> = [...Chunk.toReadonlyArray(yield* Effect.orDie(pull))]
              yield* Deferred.await(done)
              // Frames are handled in order and the response settles the call: once nothing is pending, every
              // update is in the mailbox. Nothing announces that while nobody reads, so this polls (bounded).
              yield* within(
                "the response arrived",
                Effect.yieldNow().pipe(Effect.repeat({ until: () => client.stats().pending === 0 }))
              )
              while (true) {
                const next = yield* Effect.option(pull)
                if (next._tag === "None") return out
                out.push(...Chunk.toReadonlyArray(next.value))
              }
            })
          )
        )
        // what the first pull took, then the mailbox's window
        expect(events.length).toBeLessThanOrEqual(2 * McpClient.progressWindow + 1)
        const progress = events.flatMap((e) => (e._tag === "Progress" ? [e.progress.progress] : []))
        expect(progress).toEqual([...progress].sort((a, b) => a - b))
        expect(progress.at(-1)).toBe(50_000)
        expect(events.at(-1)?._tag).toBe("Result")
      }).pipe(Effect.scoped),
    30_000
  )

  it.scoped("reporting progress without a token is a no-op", () =>
    Effect.gen(function*() {
      const Steps = McpServer.tool({
        name: "steps",
        input: Schema.Struct({}),
        handler: () => RequestContext.progress(1, 2).pipe(Effect.as("ok"))
      })
      const peer = yield* rawPeer(Steps.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* peer.handshake()
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "steps", arguments: {} } })
      expect(yield* peer.next).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "ok" }] } })
    }))
})

describe("concurrency", () => {
  it.scoped("1,000 concurrent calls all complete", () =>
    Effect.gen(function*() {
      const client = yield* connect(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      const results = yield* Effect.forEach(
        Array.from({ length: 1000 }, (_, i) => i),
        (i) => client.callTool("echo", { text: `m${i}` }),
        { concurrency: "unbounded" }
      )
      expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(
        Array.from({ length: 1000 }, (_, i) => `m${i}`)
      )
    }))

  it.scoped("the concurrency bound holds", () =>
    Effect.gen(function*() {
      const live = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const Busy = McpServer.tool({
        name: "busy",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            const n = yield* Ref.updateAndGet(live, (x) => x + 1)
            yield* Ref.update(peak, (p) => Math.max(p, n))
            yield* Effect.sleep("10 millis")
            yield* Ref.update(live, (x) => x - 1)
            return "ok"
          })
      })
      const client = yield* connect(Busy.pipe(Layer.provideMerge(McpServer.layer({ ...info, concurrency: 4 }))))
      const all = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 20 }), () => client.callTool("busy", {}), { concurrency: "unbounded" })
      )
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("10 millis")
      yield* Fiber.join(all)
      expect(yield* Ref.get(peak)).toBe(4)
    }))
})

describe("bad input never kills the engine", () => {
  it.scoped("parse error, invalid request, unknown method, bad params, defect, unknown response id", () =>
    Effect.gen(function*() {
      const Boom = McpServer.tool({
        name: "boom",
        input: Schema.Struct({}),
        handler: () => Effect.die(new Error("secret internal detail at /home/x.ts:12"))
      })
      const peer = yield* rawPeer(Layer.mergeAll(Echo, Boom).pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* peer.handshake("2024-11-05")

      yield* peer.sendMalformed("Unexpected token")
      expect(yield* peer.next).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })

      yield* peer.send({ jsonrpc: "1.0", id: 3, method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: 3, error: { code: -32600 } })

      yield* peer.send({ jsonrpc: "2.0", id: 1.5, method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: null, error: { code: -32600 } })

      yield* peer.send({ jsonrpc: "2.0", id: "x", method: "no/such/method" })
      expect(yield* peer.next).toMatchObject({ id: "x", error: { code: -32601 } })

      yield* peer.send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: 42 } })
      const bad = yield* peer.next
      expect(bad).toMatchObject({ id: 4, error: { code: -32602 } })
      expect(bad.error.message).toContain("name")

      yield* peer.send({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "echo", arguments: { text: 1 } }
      })
      const badArgs = yield* peer.next
      expect(badArgs).toMatchObject({ id: 5, error: { code: -32602 } })
      expect(badArgs.error.message).toContain("text")

      yield* peer.send({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "boom", arguments: {} } })
      const defect = yield* peer.next
      expect(defect).toEqual({ jsonrpc: "2.0", id: 6, error: { code: -32603, message: "Internal error" } })
      expect(JSON.stringify(defect)).not.toContain("secret")

      yield* peer.send({ jsonrpc: "2.0", id: 999, result: {} })
      yield* peer.send({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "still here" } }
      })
      expect(yield* peer.next).toMatchObject({ id: 7, result: { content: [{ type: "text", text: "still here" }] } })
    }))

  it.scoped("a string id stays a string; a duplicate in-flight id is refused", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const Wait = McpServer.tool({
        name: "wait",
        input: Schema.Struct({}),
        handler: () => Deferred.await(gate).pipe(Effect.as("released"))
      })
      const peer = yield* rawPeer(Wait.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* peer.handshake()
      yield* peer.send({ jsonrpc: "2.0", id: "7", method: "tools/call", params: { name: "wait", arguments: {} } })
      yield* peer.send({ jsonrpc: "2.0", id: "7", method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: "7", error: { code: -32600 } })
      yield* Deferred.succeed(gate, undefined)
      const released = yield* peer.next
      expect(released.id).toBe("7")
      expect(released.result.content[0].text).toBe("released")
    }))

  it.scoped("requests before initialize are refused, ping is answered", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      expect(yield* peer.next).toMatchObject({ id: 1, error: { code: -32600 } })
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "ping" })
      expect(yield* peer.next).toEqual({ jsonrpc: "2.0", id: 2, result: {} })
    }))

  it.scoped("batches only from 2025-03-26 peers", () =>
    Effect.gen(function*() {
      const old = yield* rawPeer(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* old.handshake("2025-03-26")
      yield* old.send([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/whatever" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "b" } } }
      ])
      const batch = yield* old.next
      expect(Array.isArray(batch)).toBe(true)
      expect(batch.map((m: { id: number }) => m.id)).toEqual([1, 2])

      const modern = yield* rawPeer(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      yield* modern.handshake("2025-06-18")
      yield* modern.send([{ jsonrpc: "2.0", id: 1, method: "ping" }])
      expect(yield* modern.next).toMatchObject({ id: null, error: { code: -32600 } })
    }))
})

describe("lifecycle", () => {
  it.scoped("initialize answers the client's revision when supported, else the latest handshake revision", () =>
    Effect.gen(function*() {
      const a = yield* rawPeer(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      expect((yield* a.handshake("2025-03-26")).result.protocolVersion).toBe("2025-03-26")
      const b = yield* rawPeer(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      expect((yield* b.handshake("1999-01-01")).result.protocolVersion).toBe("2025-11-25")
    }))

  it.scoped("every pinned revision connects", () =>
    Effect.gen(function*() {
      for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const) {
        const client = yield* connect(Echo.pipe(Layer.provideMerge(McpServer.layer(info))), {
          client: { name: "c", version: "1", revision }
        })
        expect(client.revision).toBe(revision)
        expect((yield* client.callTool("echo", { text: revision })).content).toEqual([{ type: "text", text: revision }])
      }
    }))

  it.scoped("the connection ending fails pending outgoing requests with ConnectionClosed", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const client = yield* Effect.fork(
        McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(Effect.provide(server.layer))
      )
      yield* server.acceptHandshake
      const connected = yield* Fiber.join(client)
      const call = yield* Effect.fork(Effect.either(connected.callTool("anything", {})))
      const sent = yield* server.next
      expect(sent.method).toBe("tools/call")
      yield* server.close
      const result = yield* Fiber.join(call)
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(Errors.ConnectionClosed)
    }))
})

describe("capabilities", () => {
  it.scoped("a client call needing a server capability the server lacks fails before it is sent", () =>
    Effect.gen(function*() {
      const client = yield* connect(Echo.pipe(Layer.provideMerge(McpServer.layer(info))))
      const result = yield* Effect.either(client.listPrompts())
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(Errors.CapabilityMissing)
    }))

  it.scoped("a handler sampling a client without the sampling capability fails with -32021", () =>
    Effect.gen(function*() {
      const Ask = McpServer.tool({
        name: "ask",
        input: Schema.Struct({}),
        handler: () =>
          RequestContext.sample({ messages: [], maxTokens: 10 }).pipe(
            Effect.as("sampled"),
            Effect.catchTag("MissingRequiredClientCapability", (e) =>
              Effect.succeed(`missing ${JSON.stringify(e.requiredCapabilities)}`))
          )
      })
      const client = yield* connect(Ask.pipe(Layer.provideMerge(McpServer.layer(info))))
      const result = yield* client.callTool("ask", {})
      expect(result.content).toEqual([{ type: "text", text: "missing {\"sampling\":{}}" }])
    }))

  it.scoped("without a handler the client answers server→client requests with -32601", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const client = yield* Effect.fork(
        McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(Effect.provide(server.layer))
      )
      const init = yield* server.acceptHandshake
      expect(init.params.capabilities).toEqual({})
      yield* Fiber.join(client)
      yield* server.send({
        jsonrpc: "2.0",
        id: "s1",
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 1 }
      })
      expect(yield* server.next).toMatchObject({ id: "s1", error: { code: -32601 } })
      yield* server.send({ jsonrpc: "2.0", id: "s2", method: "ping" })
      expect(yield* server.next).toEqual({ jsonrpc: "2.0", id: "s2", result: {} })
    }))
})

describe("server→client requests", () => {
  it.scoped("elicitation round trip", () =>
    Effect.gen(function*() {
      const Book = McpServer.tool({
        name: "book",
        input: Schema.Struct({}),
        handler: () =>
          RequestContext.elicit({
            message: "Which date?",
            requestedSchema: { type: "object", properties: { date: { type: "string" } }, required: ["date"] }
          }).pipe(Effect.map((r) => `${r.action}:${String(r.content?.date)}`))
      })
      const Handler = ClientHandlers.elicitation({
        elicit: (params) =>
          Effect.succeed({
            action: "accept",
            content: { date: `answer to ${(params as { message: string }).message}` }
          })
      })
      const client = yield* connect(Book.pipe(Layer.provideMerge(McpServer.layer(info))), { handlers: Handler })
      const result = yield* client.callTool("book", {})
      expect(result.content).toEqual([{ type: "text", text: "accept:answer to Which date?" }])
    }))

  it.scoped("sampling and roots round trips", () =>
    Effect.gen(function*() {
      const Think = McpServer.tool({
        name: "think",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            const sampled = yield* RequestContext.sample({
              messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
              maxTokens: 5
            })
            const roots = yield* RequestContext.listRoots
            const content = sampled.content as { text: string }
            return `${content.text} in ${roots.roots.map((r) => r.uri).join(",")}`
          })
      })
      const handlers = Layer.mergeAll(
        ClientHandlers.sampling({
          createMessage: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "4" }, model: "m" })
        }),
        ClientHandlers.roots({ roots: Effect.succeed([{ uri: "file:///work", name: "work" }]) })
      )
      const client = yield* connect(Think.pipe(Layer.provideMerge(McpServer.layer(info))), { handlers: handlers })
      expect((yield* client.callTool("think", {})).content).toEqual([{ type: "text", text: "4 in file:///work" }])
    }))
})
