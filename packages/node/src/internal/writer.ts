/**
 * Writes lines to a Node Writable with backpressure: a send completes once the stream has taken
 * the line, and waits for `drain` when the stream's buffer is full. A stream error fails this and
 * every later send with a TransportError (and is never left unhandled).
 */
import { Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type { Writable } from "node:stream"
import * as Ndjson from "./ndjson.js"

/** The most lines one system call carries; more lines in one tick go out in several. */
const LINES_PER_FLUSH = 16

/** A line writer over one Writable. */
export interface Writer {
  /** Encodes and writes one message or batch as one line. */
  readonly send: (message: Transport.Outgoing) => Effect.Effect<void, Transport.TransportError>
}

/** Makes a writer; `name` says what the stream is in error reasons (e.g. "stdout"). */
export const make = (output: Writable | NodeJS.WritableStream, name: string): Writer => {
  let failure: Transport.TransportError | undefined
  const onError = (cause: unknown) => {
    failure ??= new Transport.TransportError({
      reason: `could not write to ${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  }
  // Kept for the life of the stream: an EPIPE after we are done must not crash the process.
  output.on("error", onError)
  const closed = () => new Transport.TransportError({ reason: `${name} is closed` })
  const isClosed = () => "writable" in output && output.writable === false

  // Every send that finds the buffer full waits for the same drain: one set of listeners however many wait.
  let drained: Deferred.Deferred<void, Transport.TransportError> | undefined
  const waitForDrain = Effect.suspend(() => {
    if (drained === undefined) {
      const waiting = Deferred.unsafeMake<void, Transport.TransportError>(FiberId.none)
      drained = waiting
      const settle = () => {
        output.removeListener("drain", settle)
        output.removeListener("error", settle)
        output.removeListener("close", settle)
        drained = undefined
        Deferred.unsafeDone(waiting, failure === undefined ? Exit.void : Exit.fail(failure))
      }
      output.once("drain", settle)
      output.once("error", settle)
      output.once("close", settle)
    }
    return Deferred.await(drained)
  })

  // The lines written within one tick go out together (one system call rather than one per line), up to
  // LINES_PER_FLUSH of them: a peer can start on the first lines while we write the rest. Unbounded, 64 calls in flight
  // over stdio became a ping-pong of whole batches, each side idle while the other worked (docs/benchmarks.md).
  // While traffic is one line per tick (a call answered before the next is sent), holding a line to the end of its
  // tick only delays it: the first line of a tick goes out at once, unless the last tick that wrote carried several.
  const corkable = "cork" in output && typeof output.cork === "function" ? (output as Writable) : undefined
  let corked = false
  let lines = 0
  let tickLines = 0
  let lastTickLines = 0
  const uncork = () => {
    if (!corked) return
    corked = false
    lines = 0
    corkable?.uncork()
  }
  const endTick = () => {
    lastTickLines = tickLines
    tickLines = 0
    uncork()
  }

  return {
    // Written in the caller's call; only a full buffer makes the send wait (for `drain`).
    send: (message) =>
      Effect.suspend(() => {
        if (failure !== undefined) return Effect.fail(failure)
        if (isClosed()) return Effect.fail(closed())
        const line = Ndjson.encodeNow(message)
        if (typeof line !== "string") return Effect.fail(line)
        if (tickLines++ === 0) process.nextTick(endTick)
        if (corkable !== undefined && !corked && (tickLines > 1 || lastTickLines > 1)) {
          corked = true
          corkable.cork()
        }
        const ok = output.write(line)
        if (corked && ++lines >= LINES_PER_FLUSH) uncork()
        return ok ? Effect.void : waitForDrain
      })
  }
}
