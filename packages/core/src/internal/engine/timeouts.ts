/**
 * The timeouts of our requests: one sweeper fiber per connection fails the expired ones, in place of an
 * `Effect.timeout` (a timer and a race) per request. It wakes at the earliest deadline it knows of, or after
 * `idleCheck` to see whether anything still waits, and stops when nothing does, so an idle connection holds no fiber
 * for it. A request whose deadline comes more than the resolution before the planned sweep restarts it, so that short
 * timeouts fire on time and close deadlines share a sweep.
 *
 * A measured fast path (docs/benchmarks.md): a request costs no timer or fiber of its own, rows "in-memory tools/call,
 * sequential" and "…, 64 in flight"; an idle connection holds no fiber, rows "in-memory heap per live client+server
 * pair" and "in-memory heap per live connection of one running server".
 */
import { type JsonRpc, McpError } from "@effect-mcp/schema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FastPath from "./fastPath.js"
import { complete, expiryOf, type Pending } from "./pending.js"
import { sendCancel } from "./send.js"
import type { ConnectionState } from "./state.js"

/** How long a sweeper with nothing due waits before it looks whether any request still waits (milliseconds). */
const idleCheck = 50

/** Fails the requests expired at `now`; the earliest deadline of those left (infinite when none). */
const expire = <E>(state: ConnectionState<E>, now: number): number => {
  let next = Number.POSITIVE_INFINITY
  const pending = state.pending
  if (pending === undefined) return next
  const expired: Array<[JsonRpc.RequestId, Pending]> = []
  for (const [id, entry] of pending) {
    const at = expiryOf(entry)
    if (now >= at) expired.push([id, entry])
    else if (at < next) next = at
  }
  for (const [id, entry] of expired) {
    pending.delete(id)
    FastPath.runInBackground(state, sendCancel(state, id, "The request timed out", entry.related))
    complete(
      entry,
      Effect.fail(
        new McpError.RequestTimeout({
          message: `Request ${entry.method} (id ${JSON.stringify(id)}) timed out after ${now - entry.lastActivity} ms`,
          method: entry.method
        })
      )
    )
  }
  return next
}

/** Sleeps until the planned sweep, sweeps, and goes on while any request waits. */
const sweepLoop = <E>(state: ConnectionState<E>): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.suspend(() => {
      if (now < state.sweepAt) {
        return Effect.zipRight(Effect.sleep(Duration.millis(state.sweepAt - now)), sweepLoop(state))
      }
      const next = expire(state, now)
      if ((state.pending?.size ?? 0) === 0) {
        state.sweeper = undefined
        state.sweepAt = Number.POSITIVE_INFINITY
        return Effect.void
      }
      state.sweepAt = Math.min(next, now + idleCheck)
      return sweepLoop(state)
    }))

/** Makes sure a sweep comes by `at` (within the resolution), for a request sent at `now`. */
export const sweepBy = <E>(state: ConnectionState<E>, now: number, at: number): void => {
  if (state.sweeper !== undefined && at + state.resolution >= state.sweepAt) return
  const previous = state.sweeper
  state.sweepAt = Math.min(at, now + idleCheck)
  state.sweeper = state.runFork(sweepLoop(state))
  if (previous !== undefined) previous.unsafeInterruptAsFork(previous.id())
}

/** Stops the sweeper (the connection has ended, and its requests with it). */
export const stopSweeper = <E>(state: ConnectionState<E>): void => {
  if (state.sweeper === undefined) return
  state.sweeper.unsafeInterruptAsFork(FiberId.none)
  state.sweeper = undefined
}
