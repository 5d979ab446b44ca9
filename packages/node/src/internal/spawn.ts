/**
 * Starting a child process with Node's `child_process` directly (its stdio as plain Node streams, so that the
 * transport reads and writes them without a Stream per message): detached where process groups exist, so that
 * the child leads its own group. Closing the scope SIGTERMs the group of a child still running (the transport's
 * own shutdown, stdin EOF then signals, normally ends it before that).
 */
import { Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ChildProcessByStdio, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import type { Readable, Writable } from "node:stream"
import * as ProcessGroup from "./processGroup.js"

/** What to start. */
export interface SpawnOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Variables to set over the inherited environment (`undefined` unsets one). */
  readonly env: Readonly<Record<string, string | undefined>> | undefined
  /** Whether the child starts from this process's environment. */
  readonly inheritEnv: boolean
  readonly cwd: string | undefined
  /** Whether the child's stderr is this process's (else a pipe). */
  readonly inheritStderr: boolean
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** A started child. */
export interface Child {
  readonly pid: number
  readonly stdin: Writable
  readonly stdout: Readable
  /** `undefined` when the child's stderr is inherited. */
  readonly stderr: Readable | undefined
  /** Completes when the process has exited. */
  readonly ended: Deferred.Deferred<Ended>
}

/** Starts the process; it fails with a TransportError when it cannot be started. */
export const start = (
  options: SpawnOptions,
  name: string
): Effect.Effect<Child, Transport.TransportError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(Deferred.make<Ended>(), (ended) =>
      Effect.async<Child, Transport.TransportError>((resume) => {
        const failed = (reason: string, cause?: unknown) =>
          resume(Effect.fail(new Transport.TransportError({ reason: `could not start ${name}: ${reason}`, cause })))
        if (options.cwd !== undefined && !existsSync(options.cwd)) {
          return failed(`its working directory ${options.cwd} does not exist`)
        }
        const env: Record<string, string | undefined> = options.inheritEnv ? { ...process.env } : {}
        for (const [key, value] of Object.entries(options.env ?? {})) {
          if (value === undefined) delete env[key]
          else env[key] = value
        }
        const handle = spawn(options.command, [...options.args], {
          stdio: ["pipe", "pipe", options.inheritStderr ? "inherit" : "pipe"],
          env,
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          detached: process.platform !== "win32"
        }) as ChildProcessByStdio<Writable, Readable, Readable | null>
        // Kept for the child's life: an 'error' after the start (a failed kill) must not crash the process, and
        // neither may a read error on a pipe nobody is reading at that moment (the readers report their own).
        handle.on("error", (error) => failed(error.message, error))
        handle.stdout.on("error", () => {})
        handle.stderr?.on("error", () => {})
        handle.once("exit", (code, signal) => Deferred.unsafeDone(ended, Effect.succeed({ code, signal })))
        handle.once("spawn", () =>
          resume(Effect.succeed({
            pid: handle.pid as number,
            stdin: handle.stdin,
            stdout: handle.stdout,
            stderr: handle.stderr ?? undefined,
            ended
          })))
      })),
    (child) =>
      Effect.flatMap(Deferred.isDone(child.ended), (done) => {
        if (done) return Effect.void
        ProcessGroup.signal(child.pid, "SIGTERM")
        return Deferred.await(child.ended).pipe(Effect.timeout("1 second"), Effect.ignore)
      })
  )
