/**
 * The engine's measured fast paths, in one place so that the rest of the engine, and the handlers above it, read as
 * plain Effect. Each is the synchronous or `unsafe*` form of an idiomatic one that would cost an Effect run, a fiber,
 * an uninterruptible region or a few KB per message or per connection; each names the docs/benchmarks.md row it wins
 * ("Where the time goes" and "Where the memory goes" there say how it was measured). The timeout sweeper, the other
 * fast path, is `timeouts.ts`.
 *
 * - Fibers started in the transport's call (`runInBackground`, `startInFlight`): `Runtime.runFork` runs a fiber until
 *   it must wait, so a call whose handler needs no wait is over before the caller's send returns, and a fiber already
 *   over (`unsafePoll`) is never tracked. Rows "in-memory tools/call, sequential" and "…, 64 in flight".
 * - Their FiberMap and FiberSet, made (`runSync`) for the first fiber still running after its start: 2.1–2.4 KB each
 *   that a connection would hold otherwise. Rows "in-memory heap per live client+server pair" and "in-memory heap per
 *   live connection of one running server".
 * - An outgoing request's wait, with no exit handler and no canceller: an observer of the caller's fiber abandons the
 *   request instead (an uninterruptible region per call was most of an in-memory call, 19 → 10.5 µs; the canceller
 *   of `Effect.async` a fifth of a stdio client's CPU). Rows "in-memory tools/call" and "echo over stdio".
 * - The clock read in the caller's call (`now`), not as an instruction: rows "in-memory tools/call".
 * - A handler's context swapped in with `FiberRef.set` (`withContext`): `Effect.provide` and `Effect.locally` are an
 *   `acquireUseRelease` per call (about 5 µs against 1.8). Rows "in-memory tools/call".
 */
import type { JsonRpc } from "@effect-mcp/schema"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as FiberRef from "effect/FiberRef"
import * as FiberSet from "effect/FiberSet"
import * as Scope from "effect/Scope"
import type { Pending } from "./pending.js"
import type { ConnectionState } from "./state.js"
import type { RequestFailure } from "./types.js"

// ---------- fibers started in the transport's call ----------

/** The connection's map of running incoming requests, made in its scope for the first that outlives its start. */
export const inflightMap = <E>(
  state: ConnectionState<E>
): FiberMap.FiberMap<
  JsonRpc.RequestId
> => (state.inflight ??= Effect.runSync(Scope.extend(FiberMap.make<JsonRpc.RequestId>(), state.scope)))

/** Whether an incoming request with this id is running. */
export const isInFlight = <E>(state: ConnectionState<E>, id: JsonRpc.RequestId): boolean =>
  state.inflight !== undefined && FiberMap.unsafeHas(state.inflight, id)

/** How many incoming requests are running (the engine's synchronous `inFlight()`). */
export const inFlightCount = <E>(state: ConnectionState<E>): number =>
  state.inflight === undefined ? 0 : Effect.runSync(FiberMap.size(state.inflight))

/** Starts answering request `id` at once; a fiber still running is kept until it ends or the scope closes. */
export const startInFlight = <E>(state: ConnectionState<E>, id: JsonRpc.RequestId, answer: Effect.Effect<void>) => {
  const fiber = state.runFork(answer)
  // A request answered without waiting is over already: only one still running is in flight.
  if (fiber.unsafePoll() === null) FiberMap.unsafeSet(inflightMap(state), id, fiber)
}

/** Starts side work at once; a fiber still running is kept until it ends or the connection's scope closes. */
export const runInBackground = <E, A>(state: ConnectionState<E>, effect: Effect.Effect<A>): Fiber.RuntimeFiber<A> => {
  const fiber = state.runFork(effect)
  if (fiber.unsafePoll() === null) {
    FiberSet.unsafeAdd(state.sideWork ??= Effect.runSync(Scope.extend(FiberSet.make(), state.scope)), fiber)
  }
  return fiber
}

// ---------- an outgoing request's wait ----------

/** The clock's time now, read in the caller's call. */
export const now = <E>(state: ConnectionState<E>): number => state.clock.unsafeCurrentTimeMillis()

/**
 * Watches the request's caller for its end (added before the send, removed when the request settles): a caller
 * interrupted while it sends or waits abandons the request, and cancels it on the wire, once its fiber has ended.
 */
export const watchCaller = (caller: Fiber.RuntimeFiber<unknown, unknown>, entry: Pending): void =>
  caller.addObserver(entry.abandonOnExit)

/** Stops watching a request's caller for its end: the request is settled or its caller has its outcome. */
export const unwatchCaller = (entry: Pending): void => {
  if (entry.caller === undefined) return
  entry.caller.removeObserver(entry.abandonOnExit)
  entry.caller = undefined
}

/**
 * Waits for a pending request's outcome. One that is there already (a peer that answered within the send) is taken
 * without `Effect.async`, whose resumption, even a synchronous one, goes through the scheduler. The wait has no
 * canceller: `Effect.async` wraps one in an interruption handler, so an interrupted wait is abandoned by the observer
 * of the caller's fiber instead (`watchCaller`), when that fiber ends.
 */
export const awaitOutcome = (entry: Pending): Effect.Effect<Record<string, unknown>, RequestFailure> =>
  Effect.suspend(() =>
    entry.outcome ?? Effect.async<Record<string, unknown>, RequestFailure>((resume) => {
      if (entry.outcome !== undefined) return resume(entry.outcome)
      entry.resume = resume
    })
  )

// ---------- a handler's context ----------

/**
 * Runs `effect` on `fiber` (the current one) with `context` as its whole context, swapped in and swapped back when it
 * succeeds or fails. An interrupted effect's fiber ends with it: run this only where the effect has its fiber to
 * itself (every handler does).
 */
export const withContext = <A, E>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  context: Context.Context<never>,
  effect: Effect.Effect<A, E>
): Effect.Effect<A, E> => {
  const restore = FiberRef.set(FiberRef.currentContext, fiber.getFiberRef(FiberRef.currentContext))
  return Effect.zipRight(
    FiberRef.set(FiberRef.currentContext, context),
    Effect.matchCauseEffect(effect, {
      onSuccess: (a) => Effect.as(restore, a),
      onFailure: (cause) => Effect.zipRight(restore, Effect.failCause(cause))
    })
  )
}
