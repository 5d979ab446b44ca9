/**
 * What the leak tests over real transports share: the three kinds of round they drive a client through (calls
 * cancelled mid-flight, calls timed out, ordinary calls) against the leak fixture (`fixtures/leakServer.mjs`),
 * and what they measure on each side of the wire and compare with a baseline: the heap and the external memory
 * after a full collection, the active handles and requests, the live fibers, and the connections' activity.
 */
import type { McpClient } from "@effect-mcp/core"
import { expect } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import type * as Supervisor from "effect/Supervisor"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

setFlagsFromString("--expose-gc")
const gc: () => void = runInNewContext("gc")

/** The leak fixture (a real server process; run it with `--expose-gc`). */
export const fixture = fileURLToPath(new URL("./fixtures/leakServer.mjs", import.meta.url))

/** What could leak in one process. */
export interface Numbers {
  /** The JS heap in use after a full collection. */
  readonly heapUsed: number
  /** Memory outside the JS heap held by JS objects (buffers among it), after a full collection. */
  readonly external: number
  /** The part of `external` held by ArrayBuffers and Buffers. */
  readonly arrayBuffers: number
  /** `process.getActiveResourcesInfo()` counted by kind: the handles and requests that keep the event loop alive. */
  readonly resources: Readonly<Record<string, number>>
  /** Fibers alive (started under the tracking supervisor and not yet ended). */
  readonly fibers: number
}

/** What the fixture server reports besides: its connections' activity and its `slow` handlers. */
export interface ServerNumbers extends Numbers {
  readonly stats: { readonly connections: number; readonly inFlight: number; readonly pending: number }
  readonly started: number
  readonly interrupted: number
}

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/** The server's numbers after a full collection in the server process. */
export const serverMemory = (client: McpClient.McpClientService) =>
  Effect.map(client.callTool("memory", {}), (r) => JSON.parse(text(r)) as ServerNumbers)

/** The server's live numbers, without a collection (cheap enough to poll). */
export const serverStats = (client: McpClient.McpClientService) =>
  Effect.map(
    client.callTool("stats", {}),
    (r) => JSON.parse(text(r)) as Omit<ServerNumbers, "heapUsed" | "external" | "arrayBuffers">
  )

/** This process's active handles and requests, counted by kind. */
export const resourceCounts = (): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}

/** This process's numbers after a full collection; `fibers` counts those the supervisor tracks. */
export const clientMemory = (fibers: Supervisor.Supervisor<Array<unknown>>): Effect.Effect<Numbers> =>
  Effect.map(fibers.value, (live) => {
    gc()
    gc()
    const { arrayBuffers, external, heapUsed } = process.memoryUsage()
    return { heapUsed, external, arrayBuffers, resources: resourceCounts(), fibers: live.length }
  })

/** Repeats `check` every 5 ms until it holds; fails after `limit` (default 30 s). */
export const until = <E>(
  what: string,
  check: Effect.Effect<boolean, E>,
  limit: Duration.DurationInput = "30 seconds"
) =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("5 millis") }),
    Effect.timeoutFail({ duration: limit, onTimeout: () => new Error(`never: ${what}`) }),
    Effect.asVoid
  )

/**
 * Waits until every `slow` handler started was interrupted, the server awaits no answer of the client, and the
 * client awaits nothing. (The server's `inFlight` may count the `stats` call asking, depending on the transport.)
 */
export const idle = (client: McpClient.McpClientService) => {
  let last: unknown
  return until(
    "both sides are idle",
    Effect.map(serverStats(client), (s) => {
      last = { server: s, client: client.stats() }
      return s.stats.pending === 0 && s.started === s.interrupted &&
        client.stats().pending === 0 && client.stats().inFlight === 0
    })
  ).pipe(Effect.orDieWith((e) => new Error(`${String(e)}; last seen ${JSON.stringify(last)}`)))
}

/** `n` calls of `slow` at once, each cancelled (its fiber interrupted) once every handler has reported that it runs. */
export const cancelledRound = (client: McpClient.McpClientService, n: number) =>
  Effect.gen(function*() {
    const running = yield* Deferred.make<void, Error>()
    let reported = 0
    const onProgress = () => {
      if (++reported === n) Deferred.unsafeDone(running, Exit.void)
    }
    const calls = yield* Effect.forEach(Array.from({ length: n }), () =>
      Effect.fork(
        client.callTool("slow", {}, { onProgress }).pipe(
          Effect.tapError((e) =>
            Deferred.fail(running, new Error(`a call failed before it was cancelled: ${e.message}`))
          )
        )
      ))
    yield* Deferred.await(running).pipe(
      Effect.timeoutFail({
        duration: "30 seconds",
        onTimeout: () => new Error(`only ${reported} of ${n} handlers ran`)
      }),
      Effect.orDie
    )
    yield* Fiber.interruptAll(calls)
    yield* idle(client)
  })

/** `n` calls of `slow` at once, each timing out after `timeout`. */
export const timedOutRound = (client: McpClient.McpClientService, n: number, timeout: Duration.DurationInput) =>
  Effect.gen(function*() {
    const failures = yield* Effect.forEach(
      Array.from({ length: n }),
      () => Effect.flip(client.callTool("slow", {}, { timeout })),
      { concurrency: "unbounded" }
    )
    expect(failures.filter((e) => e._tag !== "RequestTimeout").map((e) => `${e._tag}: ${e.message}`)).toEqual([])
    yield* idle(client)
  })

/** `n` calls of `echo`, 64 at a time. */
export const normalRound = (client: McpClient.McpClientService, n: number) =>
  Effect.gen(function*() {
    const answers = yield* Effect.forEach(
      Array.from({ length: n }, (_, i) => `call ${i}`),
      (t) => Effect.map(client.callTool("echo", { text: t }), text),
      { concurrency: 64 }
    )
    expect(answers).toEqual(Array.from({ length: n }, (_, i) => `call ${i}`))
  })

/** One round of each kind: `n` calls cancelled, `n` timed out (after `timeout`), `answered` calls answered. */
export const rounds = (
  client: McpClient.McpClientService,
  n: number,
  timeout: Duration.DurationInput,
  answered: number = n
) =>
  Effect.all([cancelledRound(client, n), timedOutRound(client, n, timeout), normalRound(client, answered)], {
    discard: true
  })

/**
 * The room above the baseline: for the heap, 10% or 4 MiB, whichever is larger (it grew by at most 1.5 MB in our
 * runs, as the JIT and caches warm up); for the external memory and the array buffers, 128 KiB (they moved by at
 * most 42 bytes in our runs, in either process), which a leak of 256 bytes a call passes after 512 calls.
 */
export const room = {
  heap: (baseline: number) => Math.max(baseline * 0.1, 4 * 1024 * 1024),
  external: (_baseline: number) => 128 * 1024
}

/** Asserts that nothing grew: handles and fibers exactly back, the heap and external memory within their room. */
export const expectNoLeak = (side: string, before: Numbers, after: Numbers) => {
  expect(after.resources, `${side}: active handles and requests`).toEqual(before.resources)
  expect(after.fibers, `${side}: live fibers`).toBe(before.fibers)
  expect(after.external, `${side}: external memory (baseline ${before.external})`).toBeLessThanOrEqual(
    before.external + room.external(before.external)
  )
  expect(after.arrayBuffers, `${side}: array buffers (baseline ${before.arrayBuffers})`).toBeLessThanOrEqual(
    before.arrayBuffers + room.external(before.arrayBuffers)
  )
  expect(after.heapUsed, `${side}: heap (baseline ${before.heapUsed})`).toBeLessThanOrEqual(
    before.heapUsed + room.heap(before.heapUsed)
  )
}
