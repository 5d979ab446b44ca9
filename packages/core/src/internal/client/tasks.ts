/**
 * Tool calls made as tasks: under 2025-11-25 the core `tasks/*` methods (the server must declare
 * `tasks.requests.tools.call`), under 2026-07-28 the tasks extension, whose requests carry the stateless `_meta` with
 * the extension declared and are decoded here. A TaskHandle polls, awaits or cancels the task.
 */
import { Codec, Json, type JsonRpc, type Mcp, McpError, Method, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { CapabilityMissing, ProtocolViolation } from "../../Errors.js"
import type { McpClientError, McpClientService, TaskHandle, TaskOptions } from "../../McpClient.js"
import type * as Engine from "../engine.js"
import { decodeAs } from "./decode.js"
import { metaKeys, type MetaSource, statelessMeta } from "./statelessMeta.js"
import { type OutputSchemas, validated } from "./validation.js"

/** What tasks need of the client. */
export interface TaskClient extends MetaSource, OutputSchemas {
  readonly engine: Engine.Engine
  readonly revision: Revision.Revision
  readonly stateless: boolean
  readonly serverCapabilities: Mcp.ServerCapabilities
  readonly request: McpClientService["request"]
}

const tasksExtension = "io.modelcontextprotocol/tasks"

const ended = (status: Mcp.TaskStatus) => status === "completed" || status === "failed" || status === "cancelled"

/** The `_meta` of a request of the 2026 tasks extension: the stateless one, with the extension declared. */
const taskMeta = (client: TaskClient) => {
  const capabilities = client.capabilities
  return {
    ...statelessMeta(client, client.revision),
    [metaKeys.clientCapabilities]: {
      ...capabilities,
      extensions: { ...capabilities.extensions, [tasksExtension]: {} }
    }
  }
}

/** A request of the 2026 tasks extension (not in the method table: sent with the task `_meta`, decoded by hand). */
const extensionRequest = (client: TaskClient, method: string, taskId: string) =>
  client.engine.request(method, { taskId, _meta: taskMeta(client) })

/** Creates the task: the `tools/call` with the task `_meta` (2026) or a `task` param (2025-11-25). */
const createTask = (
  client: TaskClient,
  base: { readonly name: string; readonly arguments?: Readonly<Record<string, unknown>> },
  taskOptions: TaskOptions | undefined
): Effect.Effect<Mcp.Task, McpClientError> =>
  Effect.gen(function*() {
    const { ttl, ...callOptions } = taskOptions ?? {}
    const { engine, revision, serverCapabilities } = client
    if (client.stateless) {
      const encoded = Codec.encodeParams("tools/call", revision, { ...base, _meta: taskMeta(client) })
      if (Either.isLeft(encoded)) {
        return yield* new ProtocolViolation({ reason: `invalid tools/call params: ${Codec.describe(encoded.left)}` })
      }
      const raw = yield* engine.request("tools/call", encoded.right as Record<string, unknown>, callOptions)
      if (raw.resultType !== "task") {
        return yield* new ProtocolViolation({ reason: `tools/call ${base.name} did not create a task` })
      }
      return yield* decodeAs("Task", "domain", raw, "task")
    }
    if (Method.info("tasks/get")?.revisions.includes(revision) !== true) {
      return yield* new McpError.MethodNotFound({
        message: `tasks do not exist in revision ${revision}`,
        method: "tasks/get"
      })
    }
    if (serverCapabilities.tasks?.requests?.tools?.call === undefined) {
      return yield* new CapabilityMissing({
        method: "tools/call",
        of: "server",
        capability: "tasks.requests.tools.call"
      })
    }
    const encoded = Codec.encodeParams("tools/call", revision, { ...base, task: ttl === undefined ? {} : { ttl } })
    if (Either.isLeft(encoded)) {
      return yield* new ProtocolViolation({ reason: `invalid tools/call params: ${Codec.describe(encoded.left)}` })
    }
    const raw = yield* engine.request("tools/call", encoded.right as Record<string, unknown>, callOptions)
    return (yield* decodeAs("CreateTaskResult", revision, raw, "task")).task
  })

/** The tool's result once the task has ended: from `tasks/get` (2026, which carries it) or `tasks/result`. */
const outcome = (client: TaskClient, taskId: string): Effect.Effect<Mcp.CallToolResult, McpClientError> =>
  client.stateless
    ? Effect.gen(function*() {
      const raw = yield* extensionRequest(client, "tasks/get", taskId)
      if (Json.isRecord(raw.error)) {
        return yield* Effect.fail(McpError.fromWire(raw.error as unknown as JsonRpc.ErrorObject))
      }
      if (!Json.isRecord(raw.result)) {
        return yield* new ProtocolViolation({ reason: `task ${taskId} ended (${String(raw.status)}) without a result` })
      }
      return yield* decodeAs("CallToolResult", "domain", raw.result, "task result")
    })
    : Effect.flatMap(
      client.request("tasks/result", { taskId }),
      (raw) => decodeAs("CallToolResult", client.revision, raw, "tasks/result result")
    )

/** Calls a tool as a task: answers once the server has created it, with a handle to poll, await or cancel it. */
export const callToolAsTask = (
  client: TaskClient,
  name: string,
  args: Readonly<Record<string, unknown>> | undefined,
  taskOptions: TaskOptions | undefined
): Effect.Effect<TaskHandle, McpClientError> =>
  Effect.map(createTask(client, args === undefined ? { name } : { name, arguments: args }, taskOptions), (created) => {
    const taskId = created.taskId
    const status: Effect.Effect<Mcp.Task, McpClientError> = client.stateless
      ? Effect.flatMap(
        extensionRequest(client, "tasks/get", taskId),
        (raw) => decodeAs("Task", "domain", raw, "tasks/get result")
      )
      : client.request("tasks/get", { taskId })
    const cancel: Effect.Effect<Mcp.Task, McpClientError> = client.stateless
      ? Effect.flatMap(
        extensionRequest(client, "tasks/cancel", taskId),
        (raw) => decodeAs("Task", "domain", raw, "tasks/cancel result")
      )
      : client.request("tasks/cancel", { taskId })
    const result = Effect.gen(function*() {
      let task = created
      while (!ended(task.status)) {
        yield* Effect.sleep(task.pollInterval ?? 1000)
        task = yield* status
      }
      return yield* Effect.flatMap(outcome(client, taskId), (r) => validated(client, name, r))
    })
    return { taskId, created, status, result, cancel }
  })
