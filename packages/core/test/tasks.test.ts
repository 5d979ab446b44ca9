import { McpServer, Tool } from "@effect-mcp/core"
import type { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import { connect, rawPeer } from "./helpers.js"

// One server definition with long-running tools, served to both eras.
const counters = { started: 0, finalized: 0 }
const TaskTools = Layer.mergeAll(
  McpServer.tool({
    name: "slow",
    task: "optional",
    input: Schema.Struct({ ms: Schema.Number }),
    handler: ({ ms }) => Effect.sleep(ms).pipe(Effect.as(`slept ${ms}`))
  }),
  McpServer.tool({
    name: "forever",
    task: "required",
    input: Schema.Struct({}),
    handler: () =>
      Effect.sync(() => counters.started++).pipe(
        Effect.zipRight(Effect.never),
        Effect.onInterrupt(() => Effect.sync(() => counters.finalized++))
      )
  }),
  McpServer.tool({
    name: "broken",
    task: "optional",
    input: Schema.Struct({}),
    handler: () => Effect.fail(new Tool.ToolError({ message: "no luck" }))
  }),
  McpServer.tool({
    name: "echo",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(text)
  })
)
const Tasks = TaskTools.pipe(
  Layer.provideMerge(McpServer.layer({ name: "tasks", version: "1.0.0", tasks: { pollInterval: "100 millis" } }))
)

const started = (before: number) => Effect.repeat(Effect.sync(() => counters.started), { until: (n) => n > before })
const finalized = (before: number) => Effect.repeat(Effect.sync(() => counters.finalized), { until: (n) => n > before })

const eras: ReadonlyArray<{ readonly label: string; readonly revision?: Revision.Revision }> = [
  { label: "a client pinned to 2025-11-25", revision: "2025-11-25" },
  { label: "an unpinned client (2026-07-28)" }
]

for (const era of eras) {
  describe(`tasks with ${era.label}`, () => {
    const open = connect(Tasks, {
      client: { name: "tasks", version: "1", ...(era.revision ? { revision: era.revision } : {}) }
    })

    it.scoped("declares task support in the tool descriptor and the capabilities", () =>
      Effect.gen(function*() {
        const client = yield* open
        const tools = yield* client.listTools()
        // The 2026-07-28 core schema has no `execution`: the extension's capability carries task support.
        const support = era.revision === undefined
          ? [undefined, undefined, undefined, undefined]
          : ["optional", "required", "optional", undefined]
        expect(tools.map((t) => t.execution?.taskSupport)).toEqual(support)
        if (era.revision === undefined) {
          expect(client.serverCapabilities.extensions?.["io.modelcontextprotocol/tasks"]).toEqual({})
        } else {
          expect(client.serverCapabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } })
        }
      }))

    it.scoped("create, poll, result", () =>
      Effect.gen(function*() {
        const client = yield* open
        const handle = yield* client.callToolAsTask("slow", { ms: 5_000 }, { ttl: 60_000 })
        expect(handle.created.status).toBe("working")
        expect(handle.created.pollInterval).toBe(100)
        expect((yield* handle.status).status).toBe("working")
        const result = yield* Effect.fork(handle.result)
        yield* TestClock.adjust("6 seconds")
        expect((yield* Fiber.join(result)).content).toEqual([{ type: "text", text: "slept 5000" }])
        expect((yield* handle.status).status).toBe("completed")
      }))

    it.scoped("a tool error fails the task and its result is the error result", () =>
      Effect.gen(function*() {
        const client = yield* open
        const handle = yield* client.callToolAsTask("broken", {})
        const result = yield* Effect.fork(handle.result)
        yield* TestClock.adjust("1 second")
        const out = yield* Fiber.join(result)
        expect(out.isError).toBe(true)
        expect(out.content).toEqual([{ type: "text", text: "no luck" }])
        expect((yield* handle.status).status).toBe("failed")
      }))

    it.scoped("cancel interrupts the handler and marks the task cancelled", () =>
      Effect.gen(function*() {
        const client = yield* open
        const before = { started: counters.started, finalized: counters.finalized }
        const handle = yield* client.callToolAsTask("forever", {})
        yield* started(before.started)
        const cancelled = yield* handle.cancel
        expect(cancelled.status).toBe("cancelled")
        yield* finalized(before.finalized)
        expect((yield* handle.status).status).toBe("cancelled")
        const result = yield* Effect.fork(Effect.either(handle.result))
        yield* TestClock.adjust("1 second")
        expect(Either.isLeft(yield* Fiber.join(result))).toBe(true)
        const again = yield* Effect.either(handle.cancel)
        expect(Either.isLeft(again) && again.left._tag).toBe("InvalidParams")
      }))

    it.scoped("a tool that requires a task refuses a plain call", () =>
      Effect.gen(function*() {
        const client = yield* open
        const plain = yield* Effect.either(client.callTool("forever", {}))
        expect(Either.isLeft(plain) && plain.left._tag).toBe("MethodNotFound")
      }))

    it.scoped("a tool without task support, asked for a task", () =>
      Effect.gen(function*() {
        const client = yield* open
        const asked = yield* Effect.either(client.callToolAsTask("echo", { text: "x" }))
        // 2025-11-25: -32601; 2026: the server answers the call itself, which is not a task.
        expect(Either.isLeft(asked) && asked.left._tag).toBe(
          era.revision === undefined ? "ProtocolViolation" : "MethodNotFound"
        )
        expect((yield* client.callTool("echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }])
      }))

    it.scoped("an optional task tool still answers a plain call", () =>
      Effect.gen(function*() {
        const client = yield* open
        const call = yield* Effect.fork(client.callTool("slow", { ms: 10 }))
        yield* TestClock.adjust("10 millis")
        expect((yield* Fiber.join(call)).content).toEqual([{ type: "text", text: "slept 10" }])
      }))
  })
}

describe("2025-11-25 task methods", () => {
  it.scoped("tasks/list pages through the session's tasks", () =>
    Effect.gen(function*() {
      const client = yield* connect(
        TaskTools.pipe(Layer.provideMerge(McpServer.layer({ name: "tasks", version: "1.0.0", pageSize: 1 }))),
        { client: { name: "tasks", version: "1", revision: "2025-11-25" } }
      )
      const a = yield* client.callToolAsTask("slow", { ms: 1_000 })
      const b = yield* client.callToolAsTask("slow", { ms: 1_000 })
      const first = yield* client.request("tasks/list", {})
      expect(first.tasks.map((t) => t.taskId)).toEqual([a.taskId])
      const second = yield* client.request("tasks/list", { cursor: first.nextCursor! })
      expect(second.tasks.map((t) => t.taskId)).toEqual([b.taskId])
      expect(second.nextCursor).toBeUndefined()
    }))

  it.scoped("on the wire: CreateTaskResult, tasks/get, tasks/result with related-task, status notification", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Tasks)
      yield* peer.handshake("2025-11-25")
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 50 }, task: { ttl: 1_000 } }
      })
      const created = (yield* peer.next).result
      expect(created.task).toMatchObject({ status: "working", ttl: 1_000, pollInterval: 100 })
      expect(created.content).toBeUndefined()
      const taskId = created.task.taskId
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } })
      yield* TestClock.adjust("50 millis")
      const status = yield* peer.next
      expect(status.method).toBe("notifications/tasks/status")
      expect(status.params).toMatchObject({ taskId, status: "completed" })
      const result = (yield* peer.next).result
      expect(result.content).toEqual([{ type: "text", text: "slept 50" }])
      expect(result._meta["io.modelcontextprotocol/related-task"]).toEqual({ taskId })
      yield* peer.send({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: "nope" } })
      expect((yield* peer.next).error.code).toBe(-32602)
    }))

  it.scoped("a 2025-06-18 client has no tasks: the task field is ignored", () =>
    Effect.gen(function*() {
      const client = yield* connect(Tasks, { client: { name: "old", version: "1", revision: "2025-06-18" } })
      const asked = yield* Effect.either(client.callToolAsTask("slow", { ms: 1 }))
      expect(Either.isLeft(asked) && asked.left._tag).toBe("MethodNotFound")
      const call = yield* Effect.fork(client.callTool("slow", { ms: 1 }))
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(call)).content).toEqual([{ type: "text", text: "slept 1" }])
    }))

  it.effect("closing the session interrupts its running tasks", () =>
    Effect.gen(function*() {
      const before = { started: counters.started, finalized: counters.finalized }
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connect(Tasks, { client: { name: "tasks", version: "1", revision: "2025-11-25" } })
        yield* client.callToolAsTask("forever", {})
        yield* started(before.started)
      }))
      yield* finalized(before.finalized)
    }))
})

describe("2026-07-28 tasks extension on the wire", () => {
  const meta = (extensions: object) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions }
  })

  it.scoped("resultType task, tasks/get with the result inline, tasks/update, unknown methods", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Tasks)
      const ext = { "io.modelcontextprotocol/tasks": {} }
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: meta(ext), name: "slow", arguments: { ms: 10 } }
      })
      const created = (yield* peer.next).result
      expect(created.resultType).toBe("task")
      // The extension's CreateTaskResult is `Result & Task`: the task's fields sit beside resultType.
      expect(created).toMatchObject({ status: "working", pollInterval: 100, ttl: 3_600_000 })
      expect(created.task).toBeUndefined()
      const taskId = created.taskId
      yield* TestClock.adjust("10 millis")
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { _meta: meta(ext), taskId } })
      const got = (yield* peer.next).result
      expect(got).toMatchObject({ taskId, status: "completed", resultType: "complete" })
      expect(got.result.content).toEqual([{ type: "text", text: "slept 10" }])
      yield* peer.send({ jsonrpc: "2.0", id: 3, method: "tasks/update", params: { _meta: meta(ext), taskId } })
      expect((yield* peer.next).error.code).toBe(-32602)
      yield* peer.send({ jsonrpc: "2.0", id: 4, method: "tasks/list", params: { _meta: meta(ext) } })
      expect((yield* peer.next).error.code).toBe(-32601)
      // Without the extension declared, the same call is answered directly.
      yield* peer.send({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { _meta: meta({}), name: "slow", arguments: { ms: 10 } }
      })
      yield* TestClock.adjust("10 millis")
      expect((yield* peer.next).result).toMatchObject({ resultType: "complete", content: [{ text: "slept 10" }] })
    }))
})

describe("tasks belong to the server, each to its owner", () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } }
  }

  it.scoped("2026-07-28: a task outlives the connection of the request that created it", () =>
    Effect.gen(function*() {
      const server = Layer.succeedContext(yield* Layer.build(Tasks))
      // The connection's scope closes after its answer, as a stateless HTTP POST's does.
      const connection = yield* Scope.make()
      const first = yield* Scope.extend(rawPeer(server), connection)
      yield* first.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: meta, name: "slow", arguments: { ms: 50 } }
      })
      const created = (yield* first.next).result
      expect(created).toMatchObject({ resultType: "task", status: "working" })
      yield* Scope.close(connection, Exit.void)
      yield* TestClock.adjust("50 millis")
      const second = yield* rawPeer(server)
      yield* second.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tasks/get",
        params: { _meta: meta, taskId: created.taskId }
      })
      const got = (yield* second.next).result
      expect(got).toMatchObject({ taskId: created.taskId, status: "completed" })
      expect(got.result.content).toEqual([{ type: "text", text: "slept 50" }])
    }))

  it.scoped("a handshake session sees only its own tasks", () =>
    Effect.gen(function*() {
      const server = Layer.succeedContext(yield* Layer.build(Tasks))
      const alice = yield* rawPeer(server)
      const bob = yield* rawPeer(server)
      yield* alice.handshake("2025-11-25", { tasks: {} })
      yield* bob.handshake("2025-11-25", { tasks: {} })
      yield* alice.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 10 }, task: {} }
      })
      const { taskId } = (yield* alice.next).result.task
      yield* bob.send({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId } })
      expect((yield* bob.next).error.code).toBe(-32602)
      yield* bob.send({ jsonrpc: "2.0", id: 3, method: "tasks/list", params: {} })
      expect((yield* bob.next).result.tasks).toEqual([])
      yield* alice.send({ jsonrpc: "2.0", id: 4, method: "tasks/list", params: {} })
      expect((yield* alice.next).result.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([taskId])
    }))

  it.scoped("a settled task is forgotten once its ttl has passed since its creation", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Tasks)
      yield* peer.handshake("2025-11-25", { tasks: {} })
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 10 }, task: { ttl: 1000 } }
      })
      const { task } = (yield* peer.next).result
      expect(task.ttl).toBe(1000)
      yield* TestClock.adjust("10 millis")
      const status = yield* peer.next
      expect(status).toMatchObject({ method: "notifications/tasks/status", params: { status: "completed" } })
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: task.taskId } })
      expect((yield* peer.next).result.status).toBe("completed")
      yield* TestClock.adjust("990 millis")
      yield* peer.send({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: task.taskId } })
      expect((yield* peer.next).error.code).toBe(-32602)
    }))
})
