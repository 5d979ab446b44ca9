// The Redis task store and SSE event store as services, each built twice over its own connection (two processes)
// to one real redis-server.
import { type RedisServer, startRedis } from "@effect-mcp-examples/redis-server"
import { TaskStore } from "@effect-mcp/core"
import { EventStore, SessionDirectory } from "@effect-mcp/http"
import { McpRedis } from "@effect-mcp/redis"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { Redis } from "ioredis"

let prefixes = 0

/** The shared services as one process sees them. */
const processOf = (redis: RedisServer, prefix: string) =>
  Effect.map(Layer.build(McpRedis.layer({ url: redis.url, prefix })), (context) => ({
    tasks: Context.get(context, TaskStore.TaskStore),
    events: Context.get(context, EventStore.EventStore),
    sessions: Context.get(context, SessionDirectory.SessionDirectory)
  }))

const setup = Effect.gen(function*() {
  const redis = yield* startRedis
  const prefix = `s${++prefixes}:`
  return { redis, prefix, a: yield* processOf(redis, prefix), b: yield* processOf(redis, prefix) }
})

const result = { content: [{ type: "text" as const, text: "done" }] }
const start = (tasks: TaskStore.TaskStoreService, owner: string, run = Effect.succeed(result)) =>
  tasks.start(run, { owner, ttl: undefined, onStatus: () => Effect.void })

describe("the Redis task store", () => {
  it.scopedLive("a task's outcome, list and release, from another process", () =>
    Effect.gen(function*() {
      const { a, b } = yield* setup
      const task = yield* start(a.tasks, "client:x")
      const outcome = yield* b.tasks.outcome("client:x", task.taskId)
      expect(Exit.isSuccess(outcome) && outcome.value).toEqual(result)
      expect((yield* b.tasks.get("client:x", task.taskId)).status).toBe("completed")
      expect((yield* b.tasks.list("client:x")).map((t) => t.taskId)).toEqual([task.taskId])
      expect(yield* b.tasks.list("client:y")).toEqual([])
      expect(yield* Effect.flip(b.tasks.get("client:y", task.taskId))).toMatchObject({ _tag: "InvalidParams" })
      yield* b.tasks.release("client:x")
      expect(yield* a.tasks.list("client:x")).toEqual([])
    }))

  it.scopedLive("a waiting outcome is cancelled from a third process; the call is interrupted where it runs", () =>
    Effect.gen(function*() {
      const { a, b, prefix, redis } = yield* setup
      const c = yield* processOf(redis, prefix)
      let interrupted = false
      const task = yield* start(
        a.tasks,
        "o",
        Effect.onInterrupt(Effect.never, () => Effect.sync(() => (interrupted = true)))
      )
      const waiting = yield* Effect.fork(b.tasks.outcome("o", task.taskId))
      expect((yield* c.tasks.cancel("o", task.taskId, "stop")).status).toBe("cancelled")
      expect(Exit.isInterrupted(yield* waiting.await.pipe(Effect.flatten))).toBe(true)
      yield* Effect.repeat(Effect.sync(() => interrupted), { until: (done) => done })
      expect(yield* Effect.flip(c.tasks.cancel("o", task.taskId, "again"))).toMatchObject({ _tag: "InvalidParams" })
    }))

  it.scopedLive("a working task whose process died (its heartbeat gone) is read as failed", () =>
    Effect.gen(function*() {
      const { a, b, prefix, redis } = yield* setup
      const task = yield* start(a.tasks, "o", Effect.never)
      const raw = new Redis(redis.url)
      yield* Effect.addFinalizer(() => Effect.promise(() => raw.quit()))
      const stored = JSON.parse((yield* Effect.promise(() => raw.get(`${prefix}task:${task.taskId}`)))!)
      yield* Effect.promise(() => raw.del(`${prefix}instance:${stored.instance}`))
      const read = yield* b.tasks.get("o", task.taskId)
      expect(read).toMatchObject({ status: "failed", statusMessage: "The process that ran this task stopped" })
      const outcome = yield* b.tasks.outcome("o", task.taskId)
      expect(outcome).toMatchObject({ _tag: "Failure", cause: { _tag: "Fail", error: { _tag: "InternalError" } } })
    }))
})

describe("the Redis event store", () => {
  it.scopedLive("events kept by one process replay from another; forget drops them; Redis away is an error", () =>
    Effect.gen(function*() {
      const { a, b, redis } = yield* setup
      for (let seq = 0; seq < 3; seq++) yield* a.events.append("s1", "g", seq, { n: seq })
      yield* a.events.append("s1", "p1", 0, { other: true })
      expect(yield* b.events.after("s1", "g", 0)).toEqual([{ seq: 1, message: { n: 1 } }, {
        seq: 2,
        message: { n: 2 }
      }])
      expect(yield* b.events.after("s1", "nope", -1)).toEqual([])
      yield* b.events.forget("s1")
      expect(yield* a.events.after("s1", "g", -1)).toEqual([])
      expect(yield* a.events.after("s1", "p1", -1)).toEqual([])
      yield* redis.stop
      expect(yield* Effect.flip(a.events.after("s1", "g", -1))).toMatchObject({ _tag: "EventStoreError" })
      expect(yield* Effect.flip(a.events.append("s1", "g", 4, {}))).toMatchObject({ _tag: "EventStoreError" })
    }))
})

describe("the Redis session directory", () => {
  it.scopedLive("a session claimed by one process is found by the other; an id that is not a key never reaches Redis", () =>
    Effect.gen(function*() {
      const { a, b, prefix, redis } = yield* setup
      yield* a.sessions.advertise("http://127.0.0.1:1001")
      yield* b.sessions.advertise("http://127.0.0.1:1002")
      yield* a.sessions.claim("0123abcd")
      expect(yield* b.sessions.owner("0123abcd")).toBe("http://127.0.0.1:1001")
      // Its own session is not elsewhere.
      expect(yield* a.sessions.owner("0123abcd")).toBeUndefined()
      yield* b.sessions.release("0123abcd")
      expect(yield* b.sessions.owner("0123abcd")).toBeUndefined()
      const raw = new Redis(redis.url)
      yield* Effect.addFinalizer(() => Effect.promise(() => raw.quit()))
      for (const hostile of ["*", "a:b", "x\r\nDEL *", "", "k".repeat(129), "../session"]) {
        expect(yield* b.sessions.owner(hostile)).toBeUndefined()
        yield* b.sessions.release(hostile)
        expect(yield* Effect.flip(a.sessions.claim(hostile))).toMatchObject({ _tag: "SessionDirectoryError" })
      }
      expect(yield* Effect.promise(() => raw.keys(`${prefix}session:*`))).toEqual([])
    }))
})
