/**
 * Tasks as the session answers them: a tool call started as a task in the server's store, and the task methods of
 * 2025-11-25 (`tasks/get`, `tasks/result`, `tasks/cancel`; `tasks/list` is in the method table) and of the 2026
 * `io.modelcontextprotocol/tasks` extension, which no revision's schema describes. A handshake session owns its
 * tasks; stateless requests' tasks belong to their authenticated client.
 */
import { type Mcp, McpError, Revision } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as RequestContext from "../../RequestContext.js"
import * as TaskStore from "../../TaskStore.js"
import type { RequestContextImpl } from "../requestContextImpl.js"
import type { Handler } from "./handler.js"
import { invalidParams, metaKeys, record } from "./meta.js"
import type { SessionState } from "./state.js"

/** Who owns a request's tasks: its session, or (2026-07-28) its authenticated client. */
export const ownerOf = (session: SessionState, ctx: RequestContext.RequestContextService): string =>
  Revision.isStateless(ctx.revision) ? TaskStore.statelessOwner(ctx.auth) : session.taskOwner

/** Starts a tool call as a task in the server's scope; the call answers at once with the task. */
export const startTask = (
  session: SessionState,
  run: Effect.Effect<Mcp.CallToolResult, McpError.McpError>,
  ctx: RequestContext.RequestContextService,
  ttl: number | undefined
): Effect.Effect<Mcp.Task, McpError.McpError> => {
  const rev = ctx.revision
  return session.runtime.tasks.start(run, {
    owner: ownerOf(session, ctx),
    ttl,
    onStatus: (task) =>
      Revision.isStateless(rev) ? Effect.void : session.notify("notifications/tasks/status", rev, task)
  })
}

const getTask = (session: SessionState, params: { readonly taskId: string }, ctx: RequestContextImpl) =>
  session.runtime.tasks.get(ownerOf(session, ctx), params.taskId)

const withRelated = (result: Mcp.CallToolResult, taskId: string): Mcp.CallToolResult => ({
  ...result,
  _meta: { ...record(result._meta), [metaKeys.relatedTask]: { taskId } }
})

/** The outcome of a task once it has settled, as a result or its error. */
const outcomeOf = (
  session: SessionState,
  taskId: string,
  ctx: RequestContextImpl
): Effect.Effect<Mcp.CallToolResult, McpError.McpError> =>
  Effect.flatMap(session.runtime.tasks.outcome(ownerOf(session, ctx), taskId), (exit) =>
    Exit.isSuccess(exit)
      ? Effect.succeed(withRelated(exit.value, taskId))
      : Exit.isInterrupted(exit) || Cause.isInterruptedOnly(exit.cause)
      ? Effect.fail(invalidParams(`Task ${taskId} was cancelled`))
      : Effect.failCause(exit.cause))

const cancelTask = (session: SessionState, params: { readonly taskId: string }, ctx: RequestContextImpl) =>
  session.runtime.tasks.cancel(ownerOf(session, ctx), params.taskId, "Cancelled by the client")

/** The task methods of the method table (2025-11-25 on), but `tasks/list`. */
export const taskHandlers: {
  readonly "tasks/get": Handler<"tasks/get">
  readonly "tasks/result": Handler<"tasks/result">
  readonly "tasks/cancel": Handler<"tasks/cancel">
} = {
  "tasks/get": getTask,
  "tasks/result": (session, params, ctx) => outcomeOf(session, params.taskId, ctx),
  "tasks/cancel": cancelTask
}

/** A handler of the 2026 tasks extension: its params are only checked to name a task. */
export type ExtensionHandler = (
  session: SessionState,
  params: { readonly taskId: string },
  ctx: RequestContextImpl
) => Effect.Effect<unknown, McpError.McpError>

/** The 2026 `io.modelcontextprotocol/tasks` extension: no schema in the method table, answered by hand. */
export const extensionHandlers: Readonly<Record<string, ExtensionHandler>> = {
  "tasks/get": (session, params, ctx) =>
    Effect.gen(function*() {
      const task = yield* getTask(session, params, ctx)
      if (!TaskStore.terminal(task.status) || task.status === "cancelled") return task
      const outcome = yield* Effect.either(outcomeOf(session, task.taskId, ctx))
      return Either.isRight(outcome)
        ? { ...task, result: outcome.right }
        : { ...task, error: McpError.toWire(outcome.left, ctx.revision) }
    }),
  "tasks/update": (session, params, ctx) =>
    Effect.flatMap(
      getTask(session, params, ctx),
      (task) => Effect.fail(invalidParams(`Task ${task.taskId} is ${task.status}, not waiting for input`))
    ),
  "tasks/cancel": cancelTask
}
