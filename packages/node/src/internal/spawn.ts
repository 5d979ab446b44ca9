/**
 * Taking charge of a child process for the stdio client transport: one it starts now, or one started ahead of it
 * (`PrespawnedChild`), whose start, exit and early output are replayed. The child's stdio stays plain Node streams,
 * so that the transport reads and writes them without a Stream per message. Closing the scope SIGTERMs the group of
 * a child still running (the transport's own shutdown, stdin EOF then signals, normally ends it before that).
 */
import { Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Readable, Writable } from "node:stream"
import * as PrespawnedChild from "../PrespawnedChild.js"
import * as ProcessGroup from "./processGroup.js"

/** How a process ended: its exit code, or the signal that ended it. */
export type Ended = PrespawnedChild.Ended

/** A started child. */
export interface Child {
  readonly pid: number
  readonly stdin: Writable
  readonly stdout: Readable
  /** `undefined` when the child's stderr is inherited. */
  readonly stderr: Readable | undefined
  /** Completes when the process has exited. */
  readonly ended: Deferred.Deferred<Ended>
  /** Whether the process has exited (known at once, also for a child that exited before it was adopted). */
  readonly hasExited: () => boolean
}

/** The command line of a child, for people: what "could not start ..." names. */
export const describe = (options: PrespawnedChild.SpawnOptions): string =>
  [options.command, ...(options.args ?? [])].join(" ")

/**
 * Adopts the child `take` returns (called once, where the adoption cannot be interrupted, so that the child is never
 * left without an owner); it fails with a TransportError when the child could not be started or was adopted already.
 */
export const adopt = (
  take: () => PrespawnedChild.PrespawnedChild
): Effect.Effect<Child, Transport.TransportError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(Deferred.make<Ended>(), (ended) =>
      Effect.async<Child, Transport.TransportError>((resume) => {
        const child = take()
        const name = describe(child.options)
        let exited = false
        const hasExited = () => exited
        const adopted = PrespawnedChild.adopt(child, {
          started: (start) =>
            resume(
              start._tag === "Started"
                ? Effect.succeed({
                  pid: start.pid,
                  stdin: start.stdin,
                  stdout: start.stdout,
                  stderr: start.stderr,
                  ended,
                  hasExited
                })
                : Effect.fail(
                  new Transport.TransportError({
                    reason: `could not start ${name}: ${start.reason}`,
                    cause: start.cause
                  })
                )
            ),
          exited: (how) => {
            exited = true
            Deferred.unsafeDone(ended, Effect.succeed(how))
          }
        })
        if (!adopted) {
          resume(
            Effect.fail(
              new Transport.TransportError({ reason: `${name}: this server process has a transport already` })
            )
          )
        }
      })),
    (child) =>
      Effect.flatMap(Deferred.isDone(child.ended), (done) => {
        if (done) return Effect.void
        ProcessGroup.signal(child.pid, "SIGTERM")
        return Deferred.await(child.ended).pipe(Effect.timeout("1 second"), Effect.ignore)
      })
  )

/** Starts a child now and takes charge of it; it fails with a TransportError when it cannot be started. */
export const start = (
  options: PrespawnedChild.SpawnOptions
): Effect.Effect<Child, Transport.TransportError, Scope.Scope> => adopt(() => PrespawnedChild.spawn(options))
