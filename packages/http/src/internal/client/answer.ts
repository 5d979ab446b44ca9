/**
 * Reading the server's answer to one HTTP request into the engine: a JSON body, or an SSE stream of messages (parsed
 * by eventsource-parser) whose cursor keeps the last event id and the server's `retry` for resuming it. Every message
 * is bounded by `maxMessageBytes`.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createParser } from "eventsource-parser"
import type * as McpHttpClient from "../../McpHttpClient.js"
import * as Inbound from "./inbound.js"
import { type ClientState, type Cursor, Failed } from "./state.js"

/** One SSE event. */
export interface SseEvent {
  readonly id: string | undefined
  readonly event: string | undefined
  readonly data: string
}

/** What an SSE body yields: an event, or the server's `retry` delay. */
export type Chunk = { readonly _tag: "Event"; readonly event: SseEvent } | {
  readonly _tag: "Retry"
  readonly ms: number
}

/** The answer is larger than the client accepts. */
const tooLarge = (maxBytes: number) =>
  new Failed({ reason: `the server's message is larger than ${maxBytes} bytes (maxMessageBytes)`, tooLarge: true })

/** SSE events of a body, parsed by eventsource-parser; an event that grows past `maxBytes` fails the stream. */
export const sseEvents = <E>(body: Stream.Stream<Uint8Array, E>, maxBytes: number): Stream.Stream<Chunk, E | Failed> =>
  Stream.suspend(() => {
    const decoder = new TextDecoder()
    let out: Array<Chunk> = []
    // Bytes fed since the last complete event: what the parser may be holding.
    let held = 0
    const parser = createParser({
      onEvent: (e) => void out.push({ _tag: "Event", event: { id: e.id, event: e.event, data: e.data } }),
      onRetry: (ms) => void out.push({ _tag: "Retry", ms })
    })
    return body.pipe(
      Stream.mapConcatEffect((bytes): Effect.Effect<Array<Chunk>, Failed> => {
        held += bytes.length
        parser.feed(decoder.decode(bytes, { stream: true }))
        const chunk = out
        out = []
        if (chunk.length > 0) held = 0
        // An event that arrived whole in one chunk is measured by its data.
        const whole = chunk.some((c) => c._tag === "Event" && c.event.data.length > maxBytes)
        return held > maxBytes || whole ? Effect.fail(tooLarge(maxBytes)) : Effect.succeed(chunk)
      })
    )
  })

/** A body as text, read no further than `maxBytes`. */
export const boundedText = (
  response: McpHttpClient.IncomingResponse,
  maxBytes: number
): Effect.Effect<string, Failed> => {
  const length = response.headers["content-length"]
  const declared = length === undefined ? Number.NaN : Number(length)
  if (declared > maxBytes) return Effect.fail(tooLarge(maxBytes))
  // A declared length is all the body can be: read it whole (reading it as a Stream costs far more per answer).
  if (Number.isFinite(declared)) return Effect.mapError(response.text, (e) => new Failed({ reason: e.reason }))
  return Effect.suspend(() => {
    // Decoded as it arrives (a character split across chunks waits for its rest): no Node Buffer, so that browsers and
    // workers run it too.
    const decoder = new TextDecoder()
    let text = ""
    let size = 0
    return response.stream.pipe(
      Stream.mapError((e) => new Failed({ reason: e.reason })),
      Stream.runForEach((bytes) => {
        size += bytes.length
        if (size > maxBytes) return Effect.fail(tooLarge(maxBytes))
        text += decoder.decode(bytes, { stream: true })
        return Effect.void
      }),
      Effect.map(() => text + decoder.decode())
    )
  })
}

/** An error answer's body for its reason: read no further than `maxMessageBytes`, empty when it cannot be read. */
export const errorText = (client: ClientState, response: McpHttpClient.IncomingResponse): Effect.Effect<string> =>
  Effect.orElseSucceed(boundedText(response, client.maxMessageBytes), () => "")

/** Reads an answer (JSON or SSE) into the engine, keeping the last event id seen and the server's retry in `cursor`. */
export const read = (
  client: ClientState,
  response: McpHttpClient.IncomingResponse,
  cursor: Cursor
): Effect.Effect<void, Failed> => {
  const type = response.headers["content-type"] ?? ""
  if (type.includes("text/event-stream")) {
    return sseEvents(response.stream, client.maxMessageBytes).pipe(
      Stream.runForEach((chunk) => {
        if (chunk._tag === "Retry") {
          return Effect.sync(() => void (cursor.retryMs = chunk.ms))
        }
        if (chunk.event.id !== undefined) cursor.lastEventId = chunk.event.id
        return chunk.event.data === "" ? Effect.void : Inbound.receiveText(client, chunk.event.data)
      }),
      Effect.mapError((e) => e._tag === "Failed" ? e : new Failed({ reason: `the SSE stream failed: ${e.message}` }))
    )
  }
  return boundedText(response, client.maxMessageBytes).pipe(
    Effect.flatMap((text) => (text.trim() === "" ? Effect.void : Inbound.receiveText(client, text)))
  )
}
