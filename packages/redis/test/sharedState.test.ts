// Two servers, each with its own Redis connection (as two processes have), over one real redis-server: the state
// they share through McpRedis.layer makes them serve as one server. Then Redis goes away and comes back.
import { type RedisServer, startRedis } from "@effect-mcp-examples/redis-server"
import { McpServer, RequestContext, Transport } from "@effect-mcp/core"
import { McpRedis, RedisConnection } from "@effect-mcp/redis"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {} },
    extensions: { "io.modelcontextprotocol/tasks": {} }
  }
}

const Definitions = Layer.mergeAll(
  McpServer.tool({
    name: "ask",
    input: Schema.Struct({}),
    handler: () =>
      Effect.map(
        RequestContext.elicit({
          message: "Name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } }
        }),
        (answer) => `hello ${String(answer.content?.name)}`
      )
  }),
  McpServer.tool({ name: "forever", task: "required", input: Schema.Struct({}), handler: () => Effect.never }),
  McpServer.tool({ name: "quick", task: "optional", input: Schema.Struct({}), handler: () => Effect.succeed("done") }),
  McpServer.resource({ uri: "test://r", name: "r", read: Effect.succeed("r") })
)

/** A raw 2026-07-28 peer of a server: send a request, take what the server sends, in order. */
interface Peer {
  readonly call: (method: string, params: object) => Effect.Effect<any>
  readonly send: (method: string, params: object) => Effect.Effect<void>
  readonly next: Effect.Effect<any>
}

let ids = 0

const peerOf = (context: Context.Context<McpServer.McpServer>): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const toServer = yield* Transport.makeInbound
    const fromServer = yield* Queue.unbounded<any>()
    const transport: Transport.TransportService = {
      receive: toServer.receive,
      send: (m) => Effect.asVoid(Queue.offer(fromServer, m))
    }
    yield* McpServer.serve.pipe(
      Effect.provide(context),
      Effect.provideService(Transport.Transport, transport),
      Effect.forkScoped
    )
    const send = (method: string, params: object) =>
      Effect.sync(() => {
        toServer.push(Transport.frame({ jsonrpc: "2.0", id: ++ids, method, params: { _meta: meta, ...params } }))
      })
    const next = Queue.take(fromServer)
    return { send, next, call: (method, params) => Effect.zipRight(send(method, params), next) }
  })

/** A server over its own connection to the shared Redis, and a raw peer of it. */
const process = (redis: RedisServer, options: Partial<McpRedis.Options> = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Definitions.pipe(
        Layer.provideMerge(McpServer.layer({ name: "shared", version: "1", requestStateMaxAge: "1 hour" })),
        Layer.provide(McpRedis.layer({ url: redis.url, prefix: `t${ids++}:`, ...options }))
      )
    )
    return { peer: yield* peerOf(context), registry: Context.get(context, McpServer.McpServer) }
  })

const twoProcesses = (options: Partial<McpRedis.Options> = {}) =>
  Effect.gen(function*() {
    // Started on the real clock (it waits for the port), also in tests on the TestClock.
    const redis = yield* Effect.withClock(startRedis, Clock.make())
    const prefix = `shared${++ids}:`
    const a = yield* process(redis, { prefix, ...options })
    const b = yield* process(redis, { prefix, ...options })
    return { redis, a, b }
  })

/** Repeats a call until its answer passes. */
const until = (call: Effect.Effect<any>, done: (answer: any) => boolean) =>
  call.pipe(Effect.filterOrFail(done, () => "not yet"), Effect.retry(Schedule.spaced("20 millis")))

const answer = { "input-0": { action: "accept", content: { name: "Ada" } } }

describe("shared state on Redis", () => {
  it.scopedLive("a requestState issued by one process verifies on the other", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoProcesses()
      const first = yield* a.peer.call("tools/call", { name: "ask", arguments: {} })
      expect(first.result.resultType).toBe("input_required")
      const retried = yield* b.peer.call("tools/call", {
        name: "ask",
        arguments: {},
        requestState: first.result.requestState,
        inputResponses: answer
      })
      expect(retried.result).toMatchObject({ content: [{ type: "text", text: "hello Ada" }] })
      const forged = yield* b.peer.call("tools/call", {
        name: "ask",
        arguments: {},
        requestState: `${first.result.requestState}x`,
        inputResponses: answer
      })
      expect(forged.error).toMatchObject({ code: -32602 })
    }))

  it.scoped("a state signed before a key rotation verifies after it, and not after the next", () =>
    Effect.gen(function*() {
      // A heartbeat as slow as the rotation: the TestClock's minutes pass without a beat every second.
      const { a, b } = yield* twoProcesses({
        requestState: { rotateEvery: "1 minute" },
        tasks: { heartbeat: "1 minute" }
      })
      const ask = Effect.map(a.peer.call("tools/call", { name: "ask", arguments: {} }), (r) => r.result.requestState)
      const retry = (requestState: string) =>
        b.peer.call("tools/call", { name: "ask", arguments: {}, requestState, inputResponses: answer })
      const state = yield* ask
      yield* TestClock.adjust("1 minute")
      expect((yield* retry(state)).result).toMatchObject({ content: [{ type: "text", text: "hello Ada" }] })
      yield* TestClock.adjust("1 minute")
      expect((yield* retry(state)).error).toMatchObject({ code: -32602 })
    }))

  it.scopedLive("a task started on one process is read, cancelled and settled on the other", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoProcesses()
      const created = (yield* a.peer.call("tools/call", { name: "forever", arguments: {} })).result
      expect(created).toMatchObject({ resultType: "task", status: "working" })
      expect((yield* b.peer.call("tasks/get", { taskId: created.taskId })).result).toMatchObject({
        taskId: created.taskId,
        status: "working"
      })
      expect((yield* b.peer.call("tasks/cancel", { taskId: created.taskId })).result).toMatchObject({
        status: "cancelled"
      })
      expect((yield* a.peer.call("tasks/get", { taskId: created.taskId })).result).toMatchObject({
        status: "cancelled"
      })
      const quick = (yield* a.peer.call("tools/call", { name: "quick", arguments: {} })).result
      const settled = yield* until(
        b.peer.call("tasks/get", { taskId: quick.taskId }),
        (r) => r.result?.status !== "working"
      )
      expect(settled.result).toMatchObject({
        status: "completed",
        result: { content: [{ type: "text", text: "done" }] }
      })
      expect((yield* b.peer.call("tasks/get", { taskId: "no-such-task" })).error).toMatchObject({ code: -32602 })
    }))

  it.scopedLive("a resource update and a list change on one process reach a listener on the other", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoProcesses()
      yield* b.peer.send("subscriptions/listen", {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["test://r"] }
      })
      expect((yield* b.peer.next).method).toBe("notifications/subscriptions/acknowledged")
      yield* a.registry.notifyResourceUpdated("test://r")
      expect(yield* b.peer.next).toMatchObject({
        method: "notifications/resources/updated",
        params: { uri: "test://r" }
      })
      yield* a.registry.removeTool("quick")
      expect((yield* b.peer.next).method).toBe("notifications/tools/list_changed")
    }))
})

describe("Redis unreachable", () => {
  it.scopedLive("at start-up: the layer fails with RedisError once connectTimeout has passed", () =>
    Effect.gen(function*() {
      const redis = yield* startRedis
      yield* redis.stop
      const exit = yield* Effect.exit(Layer.build(McpRedis.layer({ url: redis.url, connectTimeout: "300 millis" })))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(exit.cause).toMatchObject({ _tag: "Fail", error: { _tag: "RedisError" } })
        expect(String((exit.cause as any).error.reason)).toContain("unreachable")
      }
      expect(RedisConnection.RedisError).toBeDefined()
    }))

  it.scopedLive("mid-run: calls that need it fail with an error, and all works again once it is back", () =>
    Effect.gen(function*() {
      const { a, b, redis } = yield* twoProcesses({ reconnect: Schedule.spaced("50 millis") })
      const created = (yield* a.peer.call("tools/call", { name: "forever", arguments: {} })).result
      yield* redis.stop
      const down = yield* b.peer.call("tasks/get", { taskId: created.taskId })
      expect(down.error).toMatchObject({ code: -32603, message: "The task store is unavailable; retry later" })
      const asked = yield* a.peer.call("tools/call", { name: "ask", arguments: {} })
      expect(asked.error).toMatchObject({ code: -32603 })
      expect((yield* a.peer.call("tools/call", { name: "quick", arguments: {} })).error).toMatchObject({
        code: -32603
      })
      yield* redis.restart
      // Back: each process connects again on its schedule.
      const back = yield* until(b.peer.call("tasks/get", { taskId: "none" }), (r) => r.error?.code === -32602)
      expect(back.error.message).toBe("Unknown task: none")
      // The restarted Redis kept nothing (no persistence): the task is gone, and says so.
      expect((yield* b.peer.call("tasks/get", { taskId: created.taskId })).error).toMatchObject({ code: -32602 })
      // The bus subscribed again: a change on one process reaches a listener on the other.
      yield* b.peer.send("subscriptions/listen", { notifications: { resourceSubscriptions: ["test://r"] } })
      expect((yield* b.peer.next).method).toBe("notifications/subscriptions/acknowledged")
      yield* a.registry.notifyResourceUpdated("test://r").pipe(
        Effect.zipRight(Effect.sleep("50 millis")),
        Effect.forever,
        Effect.forkScoped
      )
      expect(yield* b.peer.next).toMatchObject({ method: "notifications/resources/updated" })
    }))
})
