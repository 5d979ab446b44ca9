// Two servers that share their state through services (issue 31): the in-process EventBus, TaskStore and
// RequestStateKeys make them serve as one server, as processes sharing Redis do.
import { EventBus, McpServer, RequestContext, RequestStateKeys, TaskStore } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { rawPeer } from "./helpers.js"

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
  McpServer.tool({
    name: "forever",
    task: "required",
    input: Schema.Struct({}),
    handler: () => Effect.never
  }),
  McpServer.resource({ uri: "test://r", name: "r", read: Effect.succeed("r") })
)

/** Two peers of two servers built over the same shared services. */
const twoServers = (shared: Layer.Layer<EventBus.EventBus | TaskStore.TaskStore | RequestStateKeys.RequestStateKeys>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(shared)
    const server = () =>
      Definitions.pipe(
        Layer.provideMerge(McpServer.layer({ name: "shared", version: "1", requestStateMaxAge: "1 hour" })),
        Layer.provide(Layer.succeedContext(context))
      )
    const serverA = yield* Layer.build(server())
    const a = yield* rawPeer(Layer.succeedContext(serverA))
    const b = yield* rawPeer(server())
    return { a, b, registryA: Context.get(serverA, McpServer.McpServer) }
  })

const sharedMemory = (keys: RequestStateKeys.MemoryOptions = {}) =>
  Layer.mergeAll(EventBus.layerMemory, TaskStore.layerMemory(), RequestStateKeys.layerMemory(keys))

let ids = 0
const request = (method: string, params: object) => ({
  jsonrpc: "2.0",
  id: ++ids,
  method,
  params: { _meta: meta, ...params }
})

describe("shared state in memory", () => {
  it.scoped("a requestState issued by one server verifies on the other, across one key rotation", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoServers(sharedMemory({ rotateEvery: "1 minute" }))
      const ask = Effect.map(
        Effect.zipRight(a.send(request("tools/call", { name: "ask", arguments: {} })), a.next),
        (response) => String(response.result.requestState)
      )
      const retry = (requestState: string) =>
        Effect.zipRight(
          b.send(request("tools/call", {
            name: "ask",
            arguments: {},
            requestState,
            inputResponses: { "input-0": { action: "accept", content: { name: "Ada" } } }
          })),
          b.next
        )
      const state = yield* ask
      expect((yield* retry(state)).result).toMatchObject({ content: [{ type: "text", text: "hello Ada" }] })
      yield* TestClock.adjust("1 minute")
      expect((yield* retry(state)).result).toMatchObject({ content: [{ type: "text", text: "hello Ada" }] })
      yield* TestClock.adjust("1 minute")
      expect((yield* retry(state)).error).toMatchObject({ code: -32602 })
    }))

  it.scoped("a task started on one server is read and cancelled on the other", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoServers(sharedMemory())
      yield* a.send(request("tools/call", { name: "forever", arguments: {} }))
      const created = (yield* a.next).result
      expect(created).toMatchObject({ resultType: "task", status: "working" })
      yield* b.send(request("tasks/get", { taskId: created.taskId }))
      expect((yield* b.next).result).toMatchObject({ taskId: created.taskId, status: "working" })
      yield* b.send(request("tasks/cancel", { taskId: created.taskId }))
      expect((yield* b.next).result).toMatchObject({ status: "cancelled" })
      yield* a.send(request("tasks/get", { taskId: created.taskId }))
      expect((yield* a.next).result).toMatchObject({ status: "cancelled" })
    }))

  it.scopedLive("a resource update and a list change on one server reach a listener on the other", () =>
    Effect.gen(function*() {
      const { b, registryA: registry } = yield* twoServers(sharedMemory())
      yield* b.send(request("subscriptions/listen", {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["test://r"] }
      }))
      expect((yield* b.next).method).toBe("notifications/subscriptions/acknowledged")
      yield* registry.notifyResourceUpdated("test://r")
      expect(yield* b.next).toMatchObject({ method: "notifications/resources/updated", params: { uri: "test://r" } })
      yield* registry.removeTool("ask")
      expect((yield* b.next).method).toBe("notifications/tools/list_changed")
    }))
})
