/**
 * The stdio client transport: spawns an MCP server as a child process (detached, so that it leads
 * its own process group), or adopts one started ahead (`PrespawnedChild`), and speaks newline-delimited
 * JSON on its stdin and stdout, as a scoped resource providing core's Transport.
 *
 * - Closing the scope ends the child and its whole process tree: stdin is closed first (a
 *   well-behaved server exits on EOF), then the group gets SIGTERM, then SIGKILL, each step after
 *   a grace period (default 2 s) in which the group has not emptied.
 * - The child's stderr lines are forwarded to Effect's logger and the last ones are kept.
 * - When the child exits, receiving fails with `ServerExited` (a TransportError that
 *   carries the exit code, the signal and the tail of stderr), so every pending call fails with
 *   core's `ConnectionClosed` (messages sent meanwhile are dropped, so that calls made in that
 *   moment fail the same way).
 * - A line of the child's stdout that is not JSON is logged and dropped.
 */
import { Transport } from "@effect-mcp/core"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ProcessGroup from "./internal/processGroup.js"
import * as LineReader from "./internal/readable.js"
import * as Spawn from "./internal/spawn.js"
import * as Writer from "./internal/writer.js"
import type * as PrespawnedChild from "./PrespawnedChild.js"

/** How to supervise the server process, whoever started it. */
export interface Supervision {
  /** The log level of forwarded stderr lines (default "info"). */
  readonly stderrLevel?: "debug" | "info"
  /** How many of the last stderr lines are kept for error reports (default 20). */
  readonly stderrTailLines?: number
  /** How long each shutdown step (stdin EOF, SIGTERM) may take before the next (default 2 s). */
  readonly gracePeriod?: Duration.DurationInput
  /** The longest line of stdout accepted, in bytes (default 64 MiB). */
  readonly maxLineBytes?: number
}

/** How to start and supervise the server process (what to start: `PrespawnedChild.SpawnOptions`). */
export interface Options extends PrespawnedChild.SpawnOptions, Supervision {}

/** How the child ended. */
export interface ChildExit {
  /** The child's process id. */
  readonly pid: number
  /** Its exit code, when it exited by itself. */
  readonly exitCode: number | undefined
  /** The signal that ended it, when one did. */
  readonly signal: string | undefined
  /** The last lines it wrote to stderr ("" when none were kept). */
  readonly stderrTail: string
}

/** The server process exited (or closed its stdout): receiving fails with this. */
export class ServerExited extends Transport.TransportError {
  /** The child's process id. */
  readonly pid: number
  /** The signal that ended it, when one did. */
  readonly signal: string | undefined

  constructor(exit: ChildExit, reason: string = describeExit(exit)) {
    super({
      reason,
      ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
      stderrTail: exit.stderrTail
    })
    this.pid = exit.pid
    this.signal = exit.signal
    // The reason is the whole story; a stack from a stream callback adds nothing to it.
    Object.defineProperty(this, "stack", { value: `TransportError: ${reason}`, enumerable: false })
  }

  override get message(): string {
    return this.reason
  }
}

/** Says how a child ended, with the tail of its stderr. */
export const describeExit = (exit: ChildExit): string => {
  const how = exit.exitCode !== undefined
    ? `exited with code ${exit.exitCode}`
    : exit.signal !== undefined
    ? `was killed by ${exit.signal}`
    : "ended"
  const tail = exit.stderrTail === "" ? "" : `; the last lines of its stderr:\n${exit.stderrTail}`
  return `the server process (pid ${exit.pid}) ${how}${tail}`
}

/** A running child speaking MCP over its stdio. */
export interface StdioClient extends Transport.TransportService {
  /** The child's process id (and process group id). */
  readonly pid: number
  /** Completes when the child has exited (with its stderr read to the end, or nearly). */
  readonly exited: Effect.Effect<ChildExit>
  /** The last lines the child wrote to stderr. */
  readonly stderrTail: () => ReadonlyArray<string>
}

/** Polls `done` until it holds or `ms` pass; tells whether it held. */
const waitUntil = (done: () => boolean, ms: number): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) => {
    const loop: Effect.Effect<boolean> = Effect.suspend(() =>
      done()
        ? Effect.succeed(true)
        : Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => (now - start >= ms ? Effect.succeed(false) : Effect.zipRight(Effect.sleep("20 millis"), loop))
        )
    )
    return loop
  })

/** Starts the server process; closing the scope ends it and everything it started. */
export const make = (options: Options): Effect.Effect<StdioClient, Transport.TransportError, Scope.Scope> =>
  supervise(Spawn.start(options), options, options)

/**
 * Speaks to a server process started ahead with `PrespawnedChild.spawn` (its stderr as its options said), exactly as
 * `make` to one it starts: what the child did before (started or failed to, wrote, exited) is replayed, and closing
 * the scope ends it and everything it started. Fails when the child could not be started or was adopted already.
 */
export const adopt = (
  child: PrespawnedChild.PrespawnedChild,
  supervision: Supervision = {}
): Effect.Effect<StdioClient, Transport.TransportError, Scope.Scope> =>
  supervise(Spawn.adopt(() => child), child.options, supervision)

const supervise = (
  started: Effect.Effect<Spawn.Child, Transport.TransportError, Scope.Scope>,
  spawned: PrespawnedChild.SpawnOptions,
  options: Supervision
): Effect.Effect<StdioClient, Transport.TransportError, Scope.Scope> =>
  Effect.gen(function*() {
    const graceMs = Duration.toMillis(options.gracePeriod ?? Duration.seconds(2))
    const tailSize = options.stderrTailLines ?? 20
    const stderrMode = spawned.stderr ?? "log"
    const name = Spawn.describe(spawned)

    const child = yield* started
    const pid = child.pid

    // ---------- stderr: forwarded line by line, the tail kept ----------

    const tail: Array<string> = []
    const stderrDone = yield* Deferred.make<void>()
    const log = options.stderrLevel === "debug" ? Effect.logDebug : Effect.logInfo
    const childStderr = child.stderr
    const stderr = childStderr === undefined
      ? Effect.void
      : NodeStream.fromReadable<Error, Uint8Array>(() => childStderr, (cause) => cause as Error).pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) =>
          Effect.suspend(() => {
            tail.push(line)
            if (tail.length > tailSize) tail.shift()
            return stderrMode === "ignore" ? Effect.void : log(line)
          })
        ),
        Effect.annotateLogs({ mcpServer: name, pid })
      )
    yield* stderr.pipe(Effect.ignore, Effect.ensuring(Deferred.succeed(stderrDone, undefined)), Effect.forkScoped)

    // ---------- exit ----------

    let exit: ChildExit | undefined
    const exited = yield* Deferred.make<ChildExit>()
    yield* Deferred.await(child.ended).pipe(
      Effect.tap(() => Deferred.await(stderrDone).pipe(Effect.timeout("250 millis"), Effect.ignore)),
      Effect.flatMap((ended) => {
        exit = {
          pid,
          exitCode: ended.code ?? undefined,
          signal: ended.signal ?? undefined,
          stderrTail: tail.join("\n")
        }
        return Deferred.succeed(exited, exit)
      }),
      Effect.forkScoped
    )

    // ---------- stdin: one line per message, written in the sender's call (waiting only for drain) ----------

    const writer = Writer.make(child.stdin, "the server's stdin")
    const droppedMessage = Effect.logDebug("effect-mcp: dropped a message to a server that has exited")
    const send: Transport.TransportService["send"] = (message) =>
      Effect.suspend(() => {
        // The child is gone: receiving is about to fail with how it ended, which fails every pending request with
        // ConnectionClosed, this one included.
        if (exit !== undefined || child.hasExited()) return droppedMessage
        return writer.send(message).pipe(
          // A child that is exiting, or has exited unseen yet (before it was adopted, say), breaks the pipe: then its
          // exit is what happened, as for a message sent a moment later; a child still running after a moment
          // closed its stdin, and the write's failure says so.
          Effect.catchAll((error) =>
            Deferred.await(child.ended).pipe(
              Effect.timeoutTo({
                duration: "1 second",
                onSuccess: () => droppedMessage,
                onTimeout: () => Effect.fail(error)
              }),
              Effect.flatten
            )
          )
        )
      })

    // ---------- stdout: frames until it ends (or the child has been gone a moment), then the exit ----------

    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const dropped = (incoming: Transport.Malformed) =>
      runFork(
        Effect.logWarning(`effect-mcp: dropped a line of the server's stdout: ${incoming.reason}`).pipe(
          Effect.annotateLogs({ mcpServer: name, pid })
        )
      )
    const maxLine = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }
    /** Frames from stdout until it ends, or the child has been gone a moment (a grandchild may hold it open). */
    const readFrames = (deliver: Transport.Deliver) =>
      Effect.raceFirst(
        LineReader.receive(child.stdout, "the server's stdout", maxLine)((incoming) => {
          if (incoming._tag === "Frame") return deliver(incoming)
          dropped(incoming)
          // A response too long to parse still reaches the engine, which fails the call it answers.
          if (incoming.responseTo !== undefined) deliver(incoming)
        }),
        Effect.zipRight(Deferred.await(exited), Effect.sleep("200 millis"))
      )
    const ended = Deferred.await(exited).pipe(
      Effect.timeoutTo({
        duration: "1 second",
        onSuccess: (e): Transport.TransportError => new ServerExited(e),
        onTimeout: () =>
          new ServerExited(
            { pid, exitCode: undefined, signal: undefined, stderrTail: tail.join("\n") },
            `the server process (pid ${pid}) closed its stdout`
          )
      })
    )

    // ---------- shutdown: stdin EOF, then SIGTERM, then SIGKILL, to the whole group ----------

    const terminate = Effect.gen(function*() {
      child.stdin.end()
      const running = () => ProcessGroup.groupIsRunning(pid)
      if (yield* waitUntil(() => !running(), graceMs)) return
      yield* Effect.logDebug(`effect-mcp: ${name} did not exit on stdin EOF; sending SIGTERM to its process group`)
      ProcessGroup.signal(pid, "SIGTERM")
      if (yield* waitUntil(() => !running(), graceMs)) return
      yield* Effect.logWarning(`effect-mcp: ${name} did not exit on SIGTERM; sending SIGKILL to its process group`)
      ProcessGroup.signal(pid, "SIGKILL")
      yield* waitUntil(() => !running(), 1000)
    }).pipe(
      Effect.zipRight(Deferred.await(exited).pipe(Effect.timeout("1 second"), Effect.ignore)),
      Effect.annotateLogs({ mcpServer: name, pid })
    )
    yield* Effect.addFinalizer(() => terminate)

    return {
      pid,
      receive: (deliver) => Effect.zipRight(readFrames(deliver), Effect.flatMap(ended, Effect.fail)),
      send,
      describe: () => pipe,
      exited: Deferred.await(exited),
      stderrTail: () => [...tail]
    }
  })

// What telemetry records of a stdio connection.
const pipe: Transport.Description = { networkTransport: "pipe" }

/** The Transport to a server process started from `options`; closing the Layer's scope ends its process tree. */
export const layer = (options: Options): Layer.Layer<Transport.Transport, Transport.TransportError> =>
  Layer.scoped(Transport.Transport, make(options))

/** The Transport to a server process started ahead (`adopt`); closing the Layer's scope ends its process tree. */
export const layerAdopting = (
  child: PrespawnedChild.PrespawnedChild,
  supervision: Supervision = {}
): Layer.Layer<Transport.Transport, Transport.TransportError> =>
  Layer.scoped(Transport.Transport, adopt(child, supervision))
