/**
 * The in-memory task store (`TaskStore.makeMemory`, the default): every task of every connection, owned by the server's scope rather than
 * the connection that created it, so that a 2026-07-28 task (created by one stateless request and
 * polled by later ones, each on its own connection) outlives its request. Each task belongs to an
 * owner (a handshake session, or the authenticated client of stateless requests): only its owner
 * sees it, and a session's tasks end with the session. Settled tasks are forgotten once their ttl
 * has passed since creation.
 */
import type { Mcp } from "@effect-mcp/schema"
import { McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Scope from "effect/Scope"
import type * as TaskStore from "../TaskStore.js"

/** One task: its wire state (updated as it runs), its owner, and its outcome once settled. */
interface TaskEntry {
  task: Mcp.Task
  readonly owner: string
  readonly outcome: Deferred.Deferred<TaskStore.Outcome>
  readonly onStatus: TaskStore.StartOptions["onStatus"]
}

const terminal = (status: Mcp.TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

const invalidParams = (message: string) => new McpError.InvalidParams({ message })

const iso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const running = (taskId: string) => `run ${taskId}`
const expiry = (taskId: string) => `expiry ${taskId}`

/**
 * The store: its state as fields and its operations on the prototype, with its map of tasks and the map of their
 * fibers made with the first task, so that a server that runs no task pays for a few fields.
 */
class Store implements TaskStore.TaskStoreService {
  #entries: Map<string, TaskEntry> | undefined
  #fibers: FiberMap.FiberMap<string> | undefined

  constructor(
    private readonly options: { readonly pollInterval: number; readonly maxTtl: number },
    private readonly scope: Scope.Scope
  ) {}

  get #tasks(): Map<string, TaskEntry> {
    return (this.#entries ??= new Map())
  }

  /**
   * The map holding each task's fiber, its run and then (once settled) its expiry: made in the store's scope with the
   * first task (docs/benchmarks.md, "Where the memory goes": a server that runs no task holds no fiber map). Of two
   * made at once, the first is kept; the other stays empty until the scope closes it.
   */
  #fiberMap(): Effect.Effect<FiberMap.FiberMap<string>> {
    return this.#fibers !== undefined
      ? Effect.succeed(this.#fibers)
      : Effect.map(Scope.extend(FiberMap.make<string>(), this.scope), (made) => (this.#fibers ??= made))
  }

  #update(entry: TaskEntry, status: Mcp.TaskStatus, message?: string) {
    return Effect.flatMap(iso, (at) => {
      if (terminal(entry.task.status)) return Effect.void
      const { statusMessage: _previous, ...rest } = entry.task
      entry.task = {
        ...rest,
        status,
        lastUpdatedAt: at,
        ...(message === undefined ? {} : { statusMessage: message })
      }
      return entry.onStatus(entry.task)
    })
  }

  #forget(taskId: string) {
    return Effect.suspend(() => {
      this.#entries?.delete(taskId)
      return Effect.flatMap(
        this.#fiberMap(),
        (fibers) => Effect.zipRight(FiberMap.remove(fibers, running(taskId)), FiberMap.remove(fibers, expiry(taskId)))
      )
    })
  }

  /** Forgets a settled task once its ttl has passed since its creation. */
  #expire(entry: TaskEntry) {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const ttl = entry.task.ttl ?? this.options.maxTtl
      const left = Math.max(0, Date.parse(entry.task.createdAt) + ttl - now)
      return Effect.flatMap(this.#fiberMap(), (fibers) =>
        FiberMap.run(
          fibers,
          expiry(entry.task.taskId),
          Effect.zipRight(
            Effect.sleep(Duration.millis(left)),
            Effect.sync(() => this.#entries?.delete(entry.task.taskId))
          )
        ))
    })
  }

  start(
    run: Effect.Effect<Mcp.CallToolResult, McpError.McpError>,
    { onStatus, owner, ttl }: TaskStore.StartOptions
  ): Effect.Effect<Mcp.Task> {
    const store = this
    const { maxTtl, pollInterval } = this.options
    return Effect.gen(function*() {
      const at = yield* iso
      const taskId = globalThis.crypto.randomUUID()
      const entry: TaskEntry = {
        task: {
          taskId,
          status: "working",
          createdAt: at,
          lastUpdatedAt: at,
          ttl: Math.min(ttl ?? maxTtl, maxTtl),
          pollInterval
        },
        owner,
        outcome: yield* Deferred.make<TaskStore.Outcome>(),
        onStatus
      }
      store.#tasks.set(taskId, entry)
      const settle = (exit: Exit.Exit<Mcp.CallToolResult, McpError.McpError>) =>
        Effect.gen(function*() {
          const status: Mcp.TaskStatus = Exit.isSuccess(exit)
            ? (exit.value.isError === true ? "failed" : "completed")
            : Exit.isInterrupted(exit)
            ? "cancelled"
            : "failed"
          // A defect is logged here and reaches the client as a bare internal error.
          if (Exit.isFailure(exit) && Cause.isDie(exit.cause)) {
            yield* Effect.logError("effect-mcp: a task's tool call died", exit.cause)
          }
          const outcome: TaskStore.Outcome = Exit.isFailure(exit) && Cause.isDie(exit.cause)
            ? Exit.fail(new McpError.InternalError({ message: "Internal error" }))
            : exit
          yield* store.#update(entry, status)
          yield* Deferred.succeed(entry.outcome, outcome)
          if (store.#entries?.get(taskId) === entry) yield* store.#expire(entry)
        })
      yield* FiberMap.run(yield* store.#fiberMap(), running(taskId), Effect.onExit(Effect.interruptible(run), settle))
      return entry.task
    })
  }

  #find(owner: string, taskId: string): Effect.Effect<TaskEntry, McpError.McpError> {
    const entry = this.#entries?.get(taskId)
    return entry === undefined || entry.owner !== owner
      ? Effect.fail(invalidParams(`Unknown task: ${taskId}`))
      : Effect.succeed(entry)
  }

  get(owner: string, taskId: string): Effect.Effect<Mcp.Task, McpError.McpError> {
    return Effect.map(this.#find(owner, taskId), (entry) => entry.task)
  }

  outcome(owner: string, taskId: string): Effect.Effect<TaskStore.Outcome, McpError.McpError> {
    return Effect.flatMap(this.#find(owner, taskId), (entry) => Deferred.await(entry.outcome))
  }

  cancel(owner: string, taskId: string, statusMessage: string): Effect.Effect<Mcp.Task, McpError.McpError> {
    const store = this
    return Effect.gen(function*() {
      const entry = yield* store.#find(owner, taskId)
      if (terminal(entry.task.status)) {
        return yield* invalidParams(`Task ${entry.task.taskId} is already ${entry.task.status}`)
      }
      yield* store.#update(entry, "cancelled", statusMessage)
      yield* FiberMap.remove(yield* store.#fiberMap(), running(entry.task.taskId))
      return entry.task
    })
  }

  list(owner: string): Effect.Effect<ReadonlyArray<Mcp.Task>> {
    return Effect.sync(() =>
      this.#entries === undefined
        ? []
        : [...this.#entries.values()].filter((e) => e.owner === owner).map((e) => e.task)
    )
  }

  release(owner: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const entries = this.#entries
      if (entries === undefined) return Effect.void
      return Effect.forEach(
        [...entries.values()].filter((e) => e.owner === owner),
        (e) => this.#forget(e.task.taskId),
        { discard: true }
      )
    })
  }

  size(): number {
    return this.#entries?.size ?? 0
  }
}

/** Makes an in-memory task store whose task fibers live in the current scope. */
export const make = (options: TaskStore.Options): Effect.Effect<Store, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) =>
    new Store({
      pollInterval: Duration.toMillis(options.pollInterval ?? Duration.seconds(1)),
      maxTtl: Duration.toMillis(options.maxTtl ?? Duration.hours(1))
    }, scope))
