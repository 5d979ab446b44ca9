/**
 * The task store of a server: every task (2025-11-25 tasks and the 2026-07-28 `io.modelcontextprotocol/tasks`
 * extension) with its status, its outcome once settled, and its cancellation. Tasks belong to the server, not to the
 * connection that started them, so that a stateless request's task is polled by later requests. Each task has an
 * owner (a handshake session, or the authenticated client of stateless requests), and only its owner sees it.
 *
 * Without a `TaskStore` in context, `McpServer.make` keeps its tasks in memory (`McpServer.Options.tasks`); a store
 * shared by several processes (`@effect-mcp/redis`) lets any of them answer for any task.
 */
import type { Mcp, McpError } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Memory from "./internal/taskStore.js"

/** How a settled task ended: its tool result, or the error of its call. */
export type Outcome = Exit.Exit<Mcp.CallToolResult, McpError.McpError>

/** What the store needs to start a task. */
export interface StartOptions {
  /** Who may see the task. */
  readonly owner: string
  /** The ttl the client asked for (ms), capped by the store's maximum. */
  readonly ttl: number | undefined
  /** Told of every status change seen by the process that runs the task (handshake eras send it to the client). */
  readonly onStatus: (task: Mcp.Task) => Effect.Effect<void>
}

/** A task store. Unknown ids and other owners' tasks fail alike, with invalid params. */
export interface TaskStoreService {
  /** Starts the tool call as a task (its fiber in the store's scope) and answers its initial state at once. */
  readonly start: (
    run: Effect.Effect<Mcp.CallToolResult, McpError.McpError>,
    options: StartOptions
  ) => Effect.Effect<Mcp.Task, McpError.McpError>
  /** The owner's task by id, as it is now. */
  readonly get: (owner: string, taskId: string) => Effect.Effect<Mcp.Task, McpError.McpError>
  /** The outcome of the owner's task, once it has settled (waits while it runs). */
  readonly outcome: (owner: string, taskId: string) => Effect.Effect<Outcome, McpError.McpError>
  /** Cancels a running task: its handler is interrupted, wherever it runs, and its status becomes `cancelled`. */
  readonly cancel: (owner: string, taskId: string, statusMessage: string) => Effect.Effect<Mcp.Task, McpError.McpError>
  /** The owner's tasks, oldest first. */
  readonly list: (owner: string) => Effect.Effect<ReadonlyArray<Mcp.Task>, McpError.McpError>
  /** Cancels and forgets every task of an owner (a session that ended). */
  readonly release: (owner: string) => Effect.Effect<void>
}

/** The task store of a server. */
export class TaskStore extends Context.Tag("@effect-mcp/core/TaskStore")<TaskStore, TaskStoreService>() {}

/** Settings of a task store. */
export interface Options {
  /** The poll interval suggested to clients (default 1 s). */
  readonly pollInterval?: Duration.DurationInput
  /** The longest a settled task is kept, and the ttl of tasks that asked for none (default 1 hour). */
  readonly maxTtl?: Duration.DurationInput
}

/** Whether a status is final. */
export const terminal = (status: Mcp.TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** The status a task settles in after its call ended with this exit. */
export const settledStatus = (exit: Outcome): Mcp.TaskStatus =>
  Exit.isSuccess(exit)
    ? (exit.value.isError === true ? "failed" : "completed")
    : Exit.isInterrupted(exit)
    ? "cancelled"
    : "failed"

/** Makes an in-memory task store whose task fibers live in the current scope. */
export const makeMemory = (options: Options = {}): Effect.Effect<TaskStoreService, never, Scope.Scope> =>
  Memory.make(options)

/** An in-memory task store as a Layer (the default of `McpServer.make`, which takes its settings from its options). */
export const layerMemory = (options: Options = {}): Layer.Layer<TaskStore> =>
  Layer.scoped(TaskStore, makeMemory(options))

/** The owner of stateless requests' tasks: the authenticated client, or everyone when there is no authentication. */
export const statelessOwner = (auth: { readonly clientId?: string; readonly token: string } | undefined): string =>
  auth === undefined ? "anonymous" : `client:${auth.clientId ?? auth.token}`
