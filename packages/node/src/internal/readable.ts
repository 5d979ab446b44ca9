/**
 * Receiving newline-delimited JSON from a Node Readable: every chunk is split as it arrives and each complete
 * line's frame handed to the engine in the same call, with no Stream between the bytes and the engine. The end
 * of the input delivers the unterminated last line and completes; a read error fails.
 */
import { Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type { Readable } from "node:stream"
import * as Ndjson from "./ndjson.js"

/** The `receive` of a transport reading `input`; `name` says what the stream is in error reasons. */
export const receive = (
  input: Readable | NodeJS.ReadableStream,
  name: string,
  options: Ndjson.Options = {}
): Transport.TransportService["receive"] =>
(deliver) =>
  Effect.async<void, Transport.TransportError>((resume) => {
    const splitter = Ndjson.makeSplitter(options)
    const onData = (chunk: Uint8Array | string) => {
      for (const incoming of splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk)) {
        deliver(incoming)
      }
    }
    const onEnd = () => {
      stop()
      for (const incoming of splitter.flush()) deliver(incoming)
      resume(Effect.void)
    }
    const onError = (cause: unknown) => {
      stop()
      resume(Effect.fail(
        new Transport.TransportError({
          reason: `could not read ${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause
        })
      ))
    }
    const stop = () => {
      input.removeListener("data", onData)
      input.removeListener("end", onEnd)
      input.removeListener("close", onEnd)
      input.removeListener("error", onError)
    }
    if ("readableEnded" in input && input.readableEnded) return resume(Effect.void)
    input.on("data", onData)
    input.once("end", onEnd)
    input.once("close", onEnd)
    input.once("error", onError)
    // Interrupted: stop reading, so that the input no longer keeps the process alive.
    return Effect.sync(() => {
      stop()
      input.pause()
    })
  })
