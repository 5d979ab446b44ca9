/**
 * Tasks as the session answers them: a tool call started as a task in the server's store, and the task methods of
 * 2025-11-25 (`tasks/get`, `tasks/result`, `tasks/cancel`; `tasks/list` is in the method table) and of the 2026
 * `io.modelcontextprotocol/tasks` extension, which no revision's schema describes. A handshake session owns its
 * tasks; stateless requests' tasks belong to their authenticated client.
 */
import { type Mcp, McpError, Revision } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as RequestContext from "../../RequestContext.js"
import type { RequestContextImpl } from "../requestContextImpl.js"
import * as TaskStore from "../taskStore.js"
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
): Effect.Effect<Mcp.Task> => {
  const rev = ctx.revision
  return session.runtime.tasks.start(run, {
    owner: ownerOf(session, ctx),
    ttl,
    onStatus: (task) =>
      Revision.isStateless(rev) ? Effect.void : session.notify("notifications/tasks/status", rev, task)
  })
}

const findTask = (session: SessionState, params: { readonly taskId: string }, ctx: RequestContextImpl) =>
  session.runtime.tasks.find(ownerOf(session, ctx), params.taskId)

const withRelated = (result: Mcp.CallToolResult, taskId: string): Mcp.CallToolResult => ({
  ...result,
  _meta: { ...record(result._meta), [metaKeys.relatedTask]: { taskId } }
})

/** The outcome of a settled task, as a result or its error. */
const outcomeOf = (entry: TaskStore.TaskEntry): Effect.Effect<Mcp.CallToolResult, McpError.McpError> =>
  Effect.flatMap(Deferred.await(entry.outcome), (exit) =>
    Exit.isSuccess(exit)
      ? Effect.succeed(withRelated(exit.value, entry.task.taskId))
      : Exit.isInterrupted(exit) || Cause.isInterruptedOnly(exit.cause)
      ? Effect.fail(invalidParams(`Task ${entry.task.taskId} was cancelled`))
      : Effect.failCause(exit.cause))

const cancelTask = (session: SessionState, params: { readonly taskId: string }, ctx: RequestContextImpl) =>
  Effect.flatMap(
    findTask(session, params, ctx),
    (entry) => session.runtime.tasks.cancel(entry, "Cancelled by the client")
  )

/** The task methods of the method table (2025-11-25 on), but `tasks/list`. */
export const taskHandlers: {
  readonly "tasks/get": Handler<"tasks/get">
  readonly "tasks/result": Handler<"tasks/result">
  readonly "tasks/cancel": Handler<"tasks/cancel">
} = {
  "tasks/get": (session, params, ctx) => Effect.map(findTask(session, params, ctx), (entry) => entry.task),
  "tasks/result": (session, params, ctx) => Effect.flatMap(findTask(session, params, ctx), outcomeOf),
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
      const entry = yield* findTask(session, params, ctx)
      if (!TaskStore.terminal(entry.task.status) || entry.task.status === "cancelled") return entry.task
      const outcome = yield* Effect.either(outcomeOf(entry))
      return Either.isRight(outcome)
        ? { ...entry.task, result: outcome.right }
        : { ...entry.task, error: McpError.toWire(outcome.left, ctx.revision) }
    }),
  "tasks/update": (session, params, ctx) =>
    Effect.flatMap(
      findTask(session, params, ctx),
      (entry) => Effect.fail(invalidParams(`Task ${entry.task.taskId} is ${entry.task.status}, not waiting for input`))
    ),
  "tasks/cancel": cancelTask
}
