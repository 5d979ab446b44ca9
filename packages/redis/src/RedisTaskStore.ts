/**
 * `TaskStore` over Redis: any process answers `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` for a
 * task that any other started. A task's call runs in the process that started it (in a `FiberMap` of the store's
 * scope); its state and outcome are in Redis (internal/taskRecord.ts). A cancellation is written in Redis and sent on
 * the event bus to the process that runs the call, which interrupts it. Each process keeps a heartbeat key alive: a
 * task still working whose process has no heartbeat any more (it was killed) is settled as failed by whoever reads it
 * next, so no acknowledged task is left waiting forever. Redis away: each call fails with an internal error (nothing
 * is silently dropped), and a settling call's outcome is written again on the schedule until Redis is back.
 */
import { EventBus, TaskStore } from "@effect-mcp/core"
import { type Mcp, McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import * as Record from "./internal/taskRecord.js"
import { RedisConnection, type RedisConnectionService, type RedisError } from "./RedisConnection.js"

/** Settings of the shared task store. */
export interface Options extends TaskStore.Options {
  /** How often this process says it is alive (default 1 s); it is taken for dead after three missed beats. */
  readonly heartbeat?: Duration.DurationInput
}

const cancelTopic = "tasks:cancel"
const settledTopic = "tasks:settled"

const invalidParams = (message: string) => new McpError.InvalidParams({ message })

const unavailable = (error: RedisError) =>
  Effect.zipRight(
    Effect.logWarning("effect-mcp: the task store is unavailable", error),
    Effect.fail(new McpError.InternalError({ message: "The task store is unavailable; retry later" }))
  )

const iso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Makes the store over a connection and a bus, its task fibers and heartbeat in the current scope. */
export const make = (
  connection: RedisConnectionService,
  bus: EventBus.EventBusService,
  options: Options = {}
): Effect.Effect<TaskStore.TaskStoreService, RedisError, Scope.Scope> =>
  Effect.gen(function*() {
    const pollInterval = Duration.toMillis(options.pollInterval ?? Duration.seconds(1))
    const maxTtl = Duration.toMillis(options.maxTtl ?? Duration.hours(1))
    const heartbeat = Duration.toMillis(options.heartbeat ?? Duration.seconds(1))
    const instance = globalThis.crypto.randomUUID()
    const keys = Record.keys(connection.prefix)
    const run = <A>(command: (client: Redis) => Promise<A>) => Effect.catchAll(connection.run(command), unavailable)
    const fibers = yield* FiberMap.make<string>()
    const watchers = new Map<string, TaskStore.StartOptions["onStatus"]>()

    // Alive while the scope is open; the key goes when the scope closes, or three beats after the process died.
    const beat = connection.run((c) => c.set(keys.instance(instance), "1", "PX", heartbeat * 3))
    yield* beat
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.catchAll(beat, (e) => Effect.logWarning("effect-mcp: a task heartbeat failed", e)),
        Schedule.spaced(heartbeat)
      )
    )
    yield* Effect.addFinalizer(() => Effect.ignore(connection.run((c) => c.del(keys.instance(instance)))))

    // Cancellations from other processes interrupt the calls that run here.
    const cancels = yield* bus.subscribe(cancelTopic)
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(cancels), (id) => FiberMap.remove(fibers, id))))

    const write = (record: Record.TaskRecord, expires: number | undefined) =>
      connection.run((c) =>
        c.eval(
          Record.writeUnlessSettled,
          1,
          keys.task(record.task.taskId),
          Record.encode(record),
          expires === undefined ? "" : String(expires)
        )
      ).pipe(Effect.map((written) => written === 1))

    const read = (taskId: string): Effect.Effect<Record.TaskRecord | undefined, McpError.McpError> =>
      Effect.flatMap(run((c) => c.get(keys.task(taskId))), (text) => {
        if (text === null) return Effect.succeed(undefined)
        const decoded = Record.decode(text)
        return Either.isRight(decoded)
          ? Effect.succeed(decoded.right)
          : Effect.as(
            Effect.logWarning(`effect-mcp: task ${taskId} in Redis does not decode`, decoded.left.message),
            undefined
          )
      })

    /** A working task whose process died is settled as failed here. */
    const checkAlive = (record: Record.TaskRecord): Effect.Effect<Record.TaskRecord, McpError.McpError> => {
      if (TaskStore.terminal(record.task.status) || record.instance === instance) return Effect.succeed(record)
      return Effect.flatMap(run((c) => c.exists(keys.instance(record.instance))), (alive) => {
        if (alive === 1) return Effect.succeed(record)
        return Effect.flatMap(iso, (at) => {
          const failure = Exit.fail(new McpError.InternalError({ message: "The process that ran this task stopped" }))
          const next = Record.settled(record, "failed", at, failure, "The process that ran this task stopped")
          return Effect.flatMap(
            Effect.catchAll(write(next, Record.expiresAt(next.task, maxTtl)), unavailable),
            (written) => written ? Effect.succeed(next) : Effect.map(read(record.task.taskId), (r) => r ?? next)
          )
        })
      })
    }

    const find = (owner: string, taskId: string) =>
      Effect.flatMap(read(taskId), (record) =>
        record === undefined || record.owner !== owner
          ? Effect.fail(invalidParams(`Unknown task: ${taskId}`))
          : checkAlive(record))

    /** Writes a call's outcome (again, on the schedule, while Redis is away), then tells whoever waits. */
    const settle = (record: Record.TaskRecord) => (exit: TaskStore.Outcome) =>
      Effect.gen(function*() {
        if (Exit.isFailure(exit) && Cause.isDie(exit.cause)) {
          yield* Effect.logError("effect-mcp: a task's tool call died", exit.cause)
        }
        const taskId = record.task.taskId
        const next = Record.settled(record, TaskStore.settledStatus(exit), yield* iso, exit)
        const written = yield* write(next, Record.expiresAt(next.task, maxTtl)).pipe(
          Effect.retry(Schedule.spaced("1 second").pipe(Schedule.upTo(Duration.millis(maxTtl)))),
          Effect.catchAll((e) =>
            Effect.as(Effect.logError(`effect-mcp: the outcome of task ${taskId} is lost`, e), false)
          )
        )
        const final = written ? next : yield* Effect.catchAll(read(taskId), () => Effect.succeed(undefined))
        const onStatus = watchers.get(taskId)
        watchers.delete(taskId)
        if (final !== undefined && onStatus !== undefined) yield* onStatus(final.task)
        if (written) yield* Effect.ignore(bus.publish(settledTopic, taskId))
      })

    const store: TaskStore.TaskStoreService = {
      start: (call, { onStatus, owner, ttl }) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const at = new Date(now).toISOString()
          const taskId = globalThis.crypto.randomUUID()
          const task: Mcp.Task = {
            taskId,
            status: "working",
            createdAt: at,
            lastUpdatedAt: at,
            ttl: Math.min(ttl ?? maxTtl, maxTtl),
            pollInterval
          }
          const record: Record.TaskRecord = { owner, instance, task }
          yield* run((c) =>
            c.multi().set(keys.task(taskId), Record.encode(record)).zadd(keys.owner(owner), now, taskId).pexpire(
              keys.owner(owner),
              maxTtl * 2
            ).exec()
          )
          watchers.set(taskId, onStatus)
          yield* FiberMap.run(fibers, taskId, Effect.onExit(Effect.interruptible(call), settle(record)))
          return task
        }),
      get: (owner, taskId) => Effect.map(find(owner, taskId), (record) => record.task),
      outcome: (owner, taskId) =>
        Effect.scoped(Effect.gen(function*() {
          const settled = yield* bus.subscribe(settledTopic)
          while (true) {
            const record = yield* find(owner, taskId)
            if (TaskStore.terminal(record.task.status)) return Record.outcomeOf(record)
            // Woken by the settling process, or after a poll interval when its message was lost.
            yield* Effect.race(
              Effect.repeat(Queue.take(settled), { until: (id) => id === taskId }),
              Effect.sleep(Duration.millis(pollInterval))
            )
          }
        })),
      cancel: (owner, taskId, statusMessage) =>
        Effect.gen(function*() {
          const record = yield* find(owner, taskId)
          if (TaskStore.terminal(record.task.status)) {
            return yield* invalidParams(`Task ${taskId} is already ${record.task.status}`)
          }
          const next = Record.settled(record, "cancelled", yield* iso, undefined, statusMessage)
          const written = yield* Effect.catchAll(write(next, Record.expiresAt(next.task, maxTtl)), unavailable)
          if (!written) {
            const now = yield* find(owner, taskId)
            return yield* invalidParams(`Task ${taskId} is already ${now.task.status}`)
          }
          yield* FiberMap.remove(fibers, taskId)
          yield* Effect.catchAll(
            bus.publish(cancelTopic, taskId),
            (e) => Effect.logWarning(`effect-mcp: the cancellation of task ${taskId} could not reach its process`, e)
          )
          yield* Effect.ignore(bus.publish(settledTopic, taskId))
          return next.task
        }),
      list: (owner) =>
        Effect.gen(function*() {
          const ids = yield* run((c) => c.zrange(keys.owner(owner), 0, -1))
          if (ids.length === 0) return []
          const texts = yield* run((c) => c.mget(...ids.map(keys.task)))
          const gone = ids.filter((_, i) => texts[i] === null)
          if (gone.length > 0) yield* run((c) => c.zrem(keys.owner(owner), ...gone))
          const tasks: Array<Mcp.Task> = []
          for (const text of texts) {
            if (text === null) continue
            const decoded = Record.decode(text)
            if (Either.isRight(decoded) && decoded.right.owner === owner) tasks.push(decoded.right.task)
          }
          return tasks
        }),
      release: (owner) =>
        Effect.gen(function*() {
          const ids = yield* run((c) => c.zrange(keys.owner(owner), 0, -1))
          yield* Effect.forEach(ids, (id) => FiberMap.remove(fibers, id), { discard: true })
          yield* run((c) => c.del(keys.owner(owner), ...ids.map(keys.task)))
        }).pipe(Effect.catchAll((e) => Effect.logWarning(`effect-mcp: the tasks of ${owner} could not be released`, e)))
    }
    return store
  })

/** The shared task store over the connection and bus in context. */
export const layer = (
  options: Options = {}
): Layer.Layer<TaskStore.TaskStore, RedisError, RedisConnection | EventBus.EventBus> =>
  Layer.scoped(
    TaskStore.TaskStore,
    Effect.flatMap(Effect.all([RedisConnection, EventBus.EventBus]), ([connection, bus]) =>
      make(connection, bus, options))
  )
