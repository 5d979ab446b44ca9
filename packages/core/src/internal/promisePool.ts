/**
 * The fibers that run a `PromiseClient`'s calls. Driving an Effect from a Promise the plain way, an `Effect.runPromise`
 * per call, makes a root fiber per call: Effect adds each to its global `Set` of root fibers and gives each a scheduler
 * runner of its own, and the collector promotes what those keep (docs/benchmarks.md, "Promise-driven stdio, session
 * 22"). The pool keeps a few long-lived worker fibers instead and hands each call to one that is idle, so that a call is
 * a job in an array and a resumption, not a fiber. It grows to as many workers as calls are in flight and keeps up to
 * `idleWorkers` of them idle for the next calls. Row "echo over stdio, 64 in flight, ours driven by PromiseClient"
 * (docs/benchmarks.md, "PromiseClient, session 24"): 26 → 14 µs of client CPU a call on the idle machine, what one Effect
 * program spends.
 *
 * A call with an `AbortSignal` runs in a fiber of its own instead, which the signal interrupts: a worker cannot have one
 * of its calls interrupted and go on. Closing the pool's scope interrupts every fiber it started; calls that had not
 * settled, and calls made afterwards, settle with `closed`.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"

/** How many idle workers a pool keeps for the next calls by default. */
export const defaultIdleWorkers = 64

/** A call handed to a worker: its Effect and its Promise's settling functions. */
interface Job {
  readonly effect: Effect.Effect<unknown, unknown>
  readonly resolve: (value: unknown) => void
  readonly reject: (reason: unknown) => void
  readonly signal: AbortSignal | undefined
}

/** Runs Effects for Promise code. */
export interface Pool {
  /** Runs `effect` and settles the Promise with its outcome; `signal` interrupts it. */
  readonly run: <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal) => Promise<A>
}

/**
 * A pool in the current scope: its workers run in the runtime of the fiber that makes it (its context and refs), and
 * end when the scope closes. `closed` makes what an unsettled or later call rejects with then.
 */
export const make = (
  closed: () => unknown,
  idleWorkers: number = defaultIdleWorkers
): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.gen(function*() {
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const fibers = yield* FiberSet.make()
    const keepIdle = Number.isNaN(idleWorkers) ? defaultIdleWorkers : Math.max(0, idleWorkers)
    const idle: Array<(job: Job) => void> = []
    let open = true
    yield* Effect.addFinalizer(() => Effect.sync(() => (open = false)))

    /**
     * Rejects a call's Promise with what its Effect failed with: the typed error itself (not a wrapper), else its
     * defect; a call interrupted by its signal with the signal's reason, one interrupted by the pool's end with
     * `closed()`.
     */
    const fail = (job: Job, cause: Cause.Cause<unknown>): void =>
      job.reject(
        !Cause.isInterruptedOnly(cause)
          ? Cause.squash(cause)
          : job.signal?.aborted === true
          ? job.signal.reason
          : open
          ? Cause.squash(cause)
          : closed()
      )

    /** Settles a call's Promise with its Effect's exit. */
    const settle = (job: Job, exit: Exit.Exit<unknown, unknown>): void =>
      Exit.isSuccess(exit) ? job.resolve(exit.value) : fail(job, exit.cause)

    /** Keeps a fiber until it ends or the scope closes (one over already is not kept). */
    const supervise = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
      if (fiber.unsafePoll() === null) FiberSet.unsafeAdd(fibers, fiber)
    }

    /** Starts a worker on `first`; then it waits idle for the next call, unless `idleWorkers` wait already. */
    const startWorker = (first: Job) => {
      let current: Job | undefined
      // One pair of continuations per worker, not per call.
      const settled = {
        onSuccess: (value: unknown): Effect.Effect<void> => {
          const job = current!
          current = undefined
          job.resolve(value)
          return next
        },
        onFailure: (cause: Cause.Cause<unknown>): Effect.Effect<void> => {
          const job = current!
          current = undefined
          fail(job, cause)
          return next
        }
      }
      const runJob = (job: Job): Effect.Effect<void> => {
        current = job
        return Effect.matchCauseEffect(job.effect, settled)
      }
      const waitForJob = Effect.async<Job>((resume) => {
        idle.push((job) => resume(Effect.succeed(job)))
      })
      const next: Effect.Effect<void> = Effect.suspend(() =>
        !open || idle.length >= keepIdle ? Effect.void : Effect.flatMap(waitForJob, runJob)
      )
      const fiber = fork(runJob(first))
      // An interrupted worker skips its continuations: the call it was running settles from here.
      fiber.addObserver(() => {
        if (current !== undefined) fail(current, Cause.interrupt(fiber.id()))
      })
      supervise(fiber)
    }

    /** Runs a call with a signal in a fiber of its own, which the signal interrupts. */
    const runAbortable = (job: Job, signal: AbortSignal) => {
      const fiber = fork(job.effect)
      const abort = () => fiber.unsafeInterruptAsFork(FiberId.none)
      signal.addEventListener("abort", abort, { once: true })
      fiber.addObserver((exit) => {
        signal.removeEventListener("abort", abort)
        settle(job, exit)
      })
      supervise(fiber)
    }

    const run = <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> =>
      new Promise<A>((resolve, reject) => {
        if (!open) return reject(closed())
        if (signal?.aborted === true) return reject(signal.reason)
        const job: Job = { effect, resolve: resolve as (value: unknown) => void, reject, signal }
        if (signal !== undefined) return runAbortable(job, signal)
        const worker = idle.pop()
        if (worker !== undefined) return worker(job)
        startWorker(job)
      })

    return { run }
  })
