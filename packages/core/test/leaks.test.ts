/**
 * Leaks: 10,000 calls cancelled mid-flight and 10,000 timed out, on a handshake revision and on 2026-07-28.
 * Afterwards every handler was interrupted, no handler fiber and no pending request remains on either side,
 * and the heap (after a full GC) is back within 10% of its baseline.
 */
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

setFlagsFromString("--expose-gc")
const gc: () => void = runInNewContext("gc")

const CALLS = Number(process.env.EFFECT_MCP_LEAK_CALLS ?? 10_000)
const ROUND = 500

/** The heap after a full collection. */
const settledHeap = Effect.sync(() => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
})

/** Waits (polling every millisecond) until `done` holds, for a condition no event announces; dies after 30 s. */
const until = (what: string, done: () => boolean) =>
  Effect.suspend(function poll(): Effect.Effect<void> {
    return done() ? Effect.void : Effect.zipRight(Effect.sleep(1), Effect.suspend(poll))
  }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error(`never: ${what}`) }), Effect.orDie)

/**
 * A server whose `slow` tool never returns; it counts the handlers started and interrupted, and `startedAtLeast`
 * waits until `target` handlers started.
 */
const slowServer = () => {
  const counts = { started: 0, interrupted: 0 }
  let waiting: { readonly target: number; readonly reached: Deferred.Deferred<void> } | undefined
  const startedAtLeast = (target: number) =>
    Effect.gen(function*() {
      const reached = yield* Deferred.make<void>()
      waiting = { target, reached }
      if (counts.started < target) yield* Deferred.await(reached)
    })
  const Slow = McpServer.tool({
    name: "slow",
    input: Schema.Struct({}),
    handler: () =>
      Effect.sync(() => {
        counts.started++
        if (waiting !== undefined && counts.started >= waiting.target) Deferred.unsafeDone(waiting.reached, Exit.void)
      }).pipe(
        Effect.zipRight(Effect.never),
        Effect.onInterrupt(() => Effect.sync(() => counts.interrupted++)),
        Effect.as("never")
      )
  })
  return {
    counts,
    startedAtLeast,
    layer: Slow.pipe(Layer.provideMerge(McpServer.layer({ name: "leaks", version: "1" })))
  }
}

const idle = (server: McpServer.McpServerService, client: McpClient.McpClientService) =>
  until("both sides are idle", () => {
    const s = server.stats()
    const c = client.stats()
    return s.inFlight === 0 && s.pending === 0 && c.pending === 0 && c.inFlight === 0
  })

/**
 * Runs a warm-up round, takes the heap baseline, runs CALLS more calls in rounds, then checks that every
 * handler was interrupted, nothing is left on either side, the heap came back, and the connection serves.
 */
const soakRounds = <E>(
  counts: { readonly started: number; readonly interrupted: number },
  round: (n: number) => Effect.Effect<void, E>
) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const server = yield* McpServer.McpServer
    yield* round(ROUND)
    const baseline = yield* settledHeap
    for (let done = 0; done < CALLS; done += ROUND) yield* round(Math.min(ROUND, CALLS - done))
    expect(counts.interrupted).toBe(counts.started)
    expect(counts.started).toBe(CALLS + ROUND)
    expect(server.stats()).toEqual({ connections: 1, inFlight: 0, pending: 0 })
    expect(client.stats()).toEqual({ pending: 0, inFlight: 0 })
    const after = yield* settledHeap
    expect(after / baseline).toBeLessThan(1.1)
    expect((yield* client.listTools()).map((t) => t.name)).toEqual(["slow"])
  })

describe.each(["2025-11-25", "2026-07-28"] as const)("leaks (%s)", (revision) => {
  it.live(`${CALLS} calls cancelled mid-flight leave no fiber, no pending request, no heap`, () => {
    const { counts, layer, startedAtLeast } = slowServer()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const server = yield* McpServer.McpServer
      const round = (n: number) =>
        Effect.gen(function*() {
          const target = counts.started + n
          const fibers = yield* Effect.forEach(
            Array.from({ length: n }),
            () => Effect.fork(client.callTool("slow", {}))
          )
          yield* startedAtLeast(target).pipe(
            Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("not every handler started") }),
            Effect.orDie
          )
          expect(server.stats().inFlight).toBe(n)
          yield* Fiber.interruptAll(fibers)
          yield* idle(server, client)
        })
      yield* soakRounds(counts, round)
    }).pipe(Effect.provide(McpTest.layer(layer, { name: "leaks", version: "1", revision })))
  }, 120_000)

  it.live(`${CALLS} calls timed out leave no fiber, no pending request, no heap`, () => {
    const { counts, layer } = slowServer()
    return Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const server = yield* McpServer.McpServer
      const round = (n: number) =>
        Effect.gen(function*() {
          const failures = yield* Effect.forEach(
            Array.from({ length: n }),
            () => Effect.flip(client.callTool("slow", {}, { timeout: "20 millis" })),
            { concurrency: "unbounded" }
          )
          expect(new Set(failures.map((e) => e._tag))).toEqual(new Set(["RequestTimeout"]))
          yield* idle(server, client)
        })
      yield* soakRounds(counts, round)
    }).pipe(Effect.provide(McpTest.layer(layer, { name: "leaks", version: "1", revision })))
  }, 120_000)
})
