/**
 * PromiseClient: an McpClient for Promise code. Calls resolve with their results and reject with their typed
 * failures themselves; calls run on reused worker fibers, not a fiber each; a signal cancels a call on the wire;
 * closing rejects what is running and what comes after; a Layer that fails to connect rejects with its failure.
 */
import { Errors, McpClient, McpServer, McpTest, PromiseClient, RequestContext, Tool } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"

class UnknownPerson extends Schema.TaggedError<UnknownPerson>()("UnknownPerson", { name: Schema.String }) {}

/** A typed contract shared by the server below and the typed calls of the tests. */
const Greet = Tool.contract({
  name: "greet",
  input: Schema.Struct({ name: Schema.String }),
  output: Schema.Struct({ text: Schema.String }),
  failure: UnknownPerson
})

/** The slow tool's handlers: how many started, how many were interrupted. */
const makeProbe = () => {
  const counts = { started: 0 }
  const interrupted = Effect.runSync(Deferred.make<void>())
  return { counts, interrupted }
}

/** A server with an echo, a typed tool, a tool that never returns, and one that reports progress. */
const server = (probe: ReturnType<typeof makeProbe>) =>
  Layer.mergeAll(
    McpServer.tool({
      name: "echo",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(text)
    }),
    McpServer.tool({
      ...Greet,
      handler: ({ name }) =>
        name === "Nobody" ? Effect.fail(new UnknownPerson({ name })) : Effect.succeed({ text: `Hello ${name}` })
    }),
    McpServer.tool({
      name: "slow",
      input: Schema.Struct({}),
      handler: () =>
        Effect.sync(() => probe.counts.started++).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(probe.interrupted, undefined))
        )
    }),
    McpServer.tool({
      name: "count",
      input: Schema.Struct({ to: Schema.Number }),
      handler: ({ to }) =>
        Effect.forEach(Array.from({ length: to }, (_, i) => i + 1), (n) => RequestContext.progress(n, to)).pipe(
          Effect.as(`counted to ${to}`)
        )
    })
  ).pipe(Layer.provideMerge(McpServer.layer({ name: "promised", version: "1.0.0" })))

/** A supervisor that counts the fibers started under it. */
class CountingSupervisor extends Supervisor.AbstractSupervisor<number> {
  started = 0
  live = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
  get value() {
    return Effect.sync(() => this.started)
  }
  override onStart<A, E, R>(
    _context: Context.Context<R>,
    _effect: Effect.Effect<A, E, R>,
    _parent: Option.Option<Fiber.RuntimeFiber<unknown, unknown>>,
    fiber: Fiber.RuntimeFiber<A, E>
  ) {
    this.started++
    this.live.add(fiber)
  }
  override onEnd<A, E>(_value: Exit.Exit<A, E>, fiber: Fiber.RuntimeFiber<A, E>) {
    this.live.delete(fiber)
  }
}

/** Echo text back through the Promise client. */
const echo = (client: PromiseClient.PromiseClient, text: string) =>
  client.callTool("echo", { text }).then((result) => (result.content[0] as { text: string }).text)

describe("PromiseClient", () => {
  it("calls the server and reads what the handshake found", async () => {
    const client = await PromiseClient.connect(McpTest.layer(server(makeProbe())))
    try {
      expect(client.serverInfo.name).toBe("promised")
      expect(client.revision).toBe("2026-07-28")
      expect(await echo(client, "hello")).toBe("hello")
      expect((await client.listTools()).map((tool) => tool.name).sort()).toEqual(["count", "echo", "greet", "slow"])
      expect((await client.request("tools/list", {})).tools).toHaveLength(4)
      expect(await client.call(Greet, { name: "Ada" })).toEqual({ text: "Hello Ada" })
    } finally {
      await client.close()
    }
  })

  it("rejects with the typed failure itself, not a wrapper", async () => {
    const client = await PromiseClient.connect(McpTest.layer(server(makeProbe())))
    try {
      const declared = await client.call(Greet, { name: "Nobody" }).catch((e: unknown) => e)
      expect(declared).toBeInstanceOf(UnknownPerson)
      expect(declared).toMatchObject({ _tag: "UnknownPerson", name: "Nobody" })
      const unknownTool = await client.callTool("nope", {}).catch((e: unknown) => e)
      expect(McpError.isMcpError(unknownTool)).toBe(true)
      expect(unknownTool).toBeInstanceOf(Error)
      // The client serves on after a failure.
      expect(await echo(client, "still here")).toBe("still here")
    } finally {
      await client.close()
    }
  })

  it("runs concurrent calls to their own results, each on its own worker at most", async () => {
    const client = await PromiseClient.connect(McpTest.layer(server(makeProbe())))
    try {
      const texts = Array.from({ length: 200 }, (_, i) => `call ${i}`)
      expect(await Promise.all(texts.map((text) => echo(client, text)))).toEqual(texts)
    } finally {
      await client.close()
    }
  })

  it("reuses its worker fibers instead of a fiber per call, and keeps at most idleWorkers idle", async () => {
    const supervisor = new CountingSupervisor()
    const scope = Effect.runSync(Scope.make())
    const { promised } = await Effect.runPromise(
      Effect.gen(function*() {
        const context = yield* Layer.build(McpTest.layer(server(makeProbe())))
        const client = Context.get(context, McpClient.McpClient)
        const promised = yield* PromiseClient.make(client, { idleWorkers: 4 }).pipe(Effect.supervised(supervisor))
        return { promised }
      }).pipe(Scope.extend(scope))
    )
    try {
      for (let i = 0; i < 100; i++) expect(await echo(promised, `call ${i}`)).toBe(`call ${i}`)
      // A hundred sequential calls: one worker, reused.
      expect(supervisor.started).toBe(1)
      // Ten at once need ten workers; then four of them wait for the next calls and the others end.
      await Promise.all(Array.from({ length: 10 }, (_, i) => echo(promised, `burst ${i}`)))
      expect(supervisor.started).toBeLessThanOrEqual(10)
      await Effect.runPromise(Effect.yieldNow())
      expect(supervisor.live.size).toBeLessThanOrEqual(4)
      const before = supervisor.started
      await Promise.all(Array.from({ length: 4 }, (_, i) => echo(promised, `again ${i}`)))
      expect(supervisor.started).toBe(before)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    // The scope's end stops every worker.
    expect(supervisor.live.size).toBe(0)
  })

  it("with idleWorkers 0 keeps no worker between calls", async () => {
    const supervisor = new CountingSupervisor()
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(McpTest.layer(server(makeProbe())))
      const client = Context.get(context, McpClient.McpClient)
      const promised = yield* PromiseClient.make(client, { idleWorkers: 0 }).pipe(Effect.supervised(supervisor))
      for (let i = 0; i < 5; i++) {
        expect(yield* Effect.promise(() => echo(promised, `call ${i}`))).toBe(`call ${i}`)
        yield* Effect.yieldNow()
        expect(supervisor.live.size).toBe(0)
      }
      expect(supervisor.started).toBe(5)
    })))
  })

  it("cancels a call on the wire when its signal aborts, and rejects with the signal's reason", async () => {
    const probe = makeProbe()
    const client = await PromiseClient.connect(McpTest.layer(server(probe)))
    try {
      const controller = new AbortController()
      const call = client.callTool("slow", {}, { signal: controller.signal }).catch((e: unknown) => e)
      while (probe.counts.started === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      const reason = new Error("the user gave up")
      controller.abort(reason)
      expect(await call).toBe(reason)
      // The server's handler was interrupted: the cancellation went over the wire.
      await Effect.runPromise(Deferred.await(probe.interrupted))
      expect(await echo(client, "after")).toBe("after")
      // A signal aborted already: the call never starts.
      const rejected = await client.callTool("slow", {}, { signal: AbortSignal.abort("too late") }).catch((e) => e)
      expect(rejected).toBe("too late")
      expect(probe.counts.started).toBe(1)
    } finally {
      await client.close()
    }
  })

  it("close rejects the calls still running and the calls made afterwards with ConnectionClosed", async () => {
    const probe = makeProbe()
    const client = await PromiseClient.connect(McpTest.layer(server(probe)))
    const running = client.callTool("slow", {}).catch((e: unknown) => e)
    const signalled = client.callTool("slow", {}, { signal: new AbortController().signal }).catch((e: unknown) => e)
    while (probe.counts.started < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    await client.close()
    expect(await running).toBeInstanceOf(Errors.ConnectionClosed)
    expect(await signalled).toBeInstanceOf(Errors.ConnectionClosed)
    expect(await echo(client, "closed").catch((e: unknown) => e)).toBeInstanceOf(Errors.ConnectionClosed)
    await client.close()
  })

  it("from make, close stops the Promise client and leaves the connection to its scope", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(McpTest.layer(server(makeProbe())))
      const client = Context.get(context, McpClient.McpClient)
      const promised = yield* PromiseClient.make(client)
      const result = yield* Effect.promise(() => echo(promised, "via promise"))
      expect(result).toBe("via promise")
      yield* Effect.promise(() => promised.close())
      const after = yield* Effect.promise(() => echo(promised, "closed").catch((e: unknown) => e))
      expect(after).toBeInstanceOf(Errors.ConnectionClosed)
      // The Effect client still serves.
      const direct = yield* client.callTool("echo", { text: "direct" })
      expect(direct.content).toEqual([{ type: "text", text: "direct" }])
    })))
  })

  it("runs any Effect that needs the client: a progress Stream drained", async () => {
    const client = await PromiseClient.connect(McpTest.layer(server(makeProbe())))
    try {
      const events = await client.run(
        Effect.flatMap(McpClient.McpClient, (c) => Stream.runCollect(c.callToolStream("count", { to: 3 })))
      )
      const tags = Chunk.toReadonlyArray(events).map((event) => event._tag)
      expect(tags).toEqual(["Progress", "Progress", "Progress", "Result"])
      // An Effect that interrupts itself rejects as interrupted, not as closed.
      const interrupted = await client.run(Effect.interrupt).catch((e: unknown) => e)
      expect(interrupted).not.toBeInstanceOf(Errors.ConnectionClosed)
      expect(await echo(client, "on")).toBe("on")
      // A run that would never end (a notification Stream drained, say) ends with its signal.
      const controller = new AbortController()
      const forever = client.run(Effect.never, { signal: controller.signal }).catch((e: unknown) => e)
      controller.abort("stop listening")
      expect(await forever).toBe("stop listening")
    } finally {
      await client.close()
    }
  })

  it("rejects connect with what building the client failed with", async () => {
    const failure = new Errors.HandshakeFailed({ reason: "no server here" })
    const layer = Layer.effect(McpClient.McpClient, Effect.fail(failure))
    expect(await PromiseClient.connect(layer).catch((e: unknown) => e)).toBe(failure)
  })
})
