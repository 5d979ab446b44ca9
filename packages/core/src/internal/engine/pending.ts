/**
 * One of our requests awaiting its response: its entry in the connection's pending table, and how it settles. A
 * request settles without an exit handler around it (see `fastPath`): a response, a timeout or the connection's end
 * takes it out of the table and hands its outcome to its caller, or keeps it for when the caller waits.
 */
import type { JsonRpc } from "@effect-mcp/schema"
import type * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FastPath from "./fastPath.js"
import type { Progress, RequestFailure } from "./types.js"

/** A request of ours that awaits its response. */
export interface Pending {
  readonly method: string
  readonly timeoutMs: number
  readonly deadlineMs: number
  /** Resumes the caller, once it waits (an async callback, lighter than a Deferred per request). */
  resume: ((outcome: Effect.Effect<Record<string, unknown>, RequestFailure>) => void) | undefined
  /** The fiber that made the request, while it has `abandonOnExit` among its observers. */
  caller: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** Abandons the request when its caller ends first (the caller was interrupted while it sent or waited). */
  readonly abandonOnExit: () => void
  /** The outcome, when it came before the caller waited. */
  outcome: Effect.Effect<Record<string, unknown>, RequestFailure> | undefined
  readonly onProgress: ((p: Progress) => void) | undefined
  readonly resets: boolean
  lastActivity: number
  /** The incoming request this one is made on behalf of (what its cancellation is related to). */
  readonly related: JsonRpc.RequestId | undefined
}

/** Settles a pending request: resumes its caller, or keeps the outcome for when it waits. */
export const complete = (entry: Pending, outcome: Effect.Effect<Record<string, unknown>, RequestFailure>): void => {
  FastPath.unwatchCaller(entry)
  if (entry.resume !== undefined) {
    const resume = entry.resume
    entry.resume = undefined
    resume(outcome)
  } else entry.outcome ??= outcome
}

/** When a pending request expires: its timeout after its last activity, or its total cap, whichever comes first. */
export const expiryOf = (entry: Pending): number => Math.min(entry.lastActivity + entry.timeoutMs, entry.deadlineMs)
