/**
 * An Effect whose outcome is remembered: its success for good, its failure for a cooldown (so that an unreachable
 * authorization server is asked again, but not on every request). Concurrent callers share one attempt, which runs on
 * its own fiber, so that a caller that goes away does not cancel it for the others.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/** `load`, run once and remembered: a success for good, a failure for `retryAfterMs`. */
export const remembered = <A, E>(load: Effect.Effect<A, E>, retryAfterMs: number): Effect.Effect<A, E> => {
  let kept: { readonly exit: Exit.Exit<A, E>; readonly at: number } | undefined
  let pending: Deferred.Deferred<A, E> | undefined
  return Effect.suspend(() => {
    if (kept !== undefined && (Exit.isSuccess(kept.exit) || Date.now() - kept.at < retryAfterMs)) return kept.exit
    if (pending !== undefined) return Deferred.await(pending)
    const attempt = Deferred.unsafeMake<A, E>(FiberId.none)
    pending = attempt
    const settle = (exit: Exit.Exit<A, E>) =>
      Effect.suspend(() => {
        kept = { exit, at: Date.now() }
        pending = undefined
        return Deferred.done(attempt, exit)
      })
    return Effect.zipRight(Effect.forkDaemon(Effect.flatMap(Effect.exit(load), settle)), Deferred.await(attempt))
  })
}
