/**
 * Answering a POST that carries requests, once its stream has its first item: a JSON body when that item is the final
 * response (or the client accepts only JSON), else an SSE stream written by the Outbox writer, resumable and primed
 * for sessions of 2025-11-25 and later when there is an event store. Also the stream parameters a GET shares.
 */
import type { Transport } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as EventStore from "../../EventStore.js"
import * as Outbox from "../outbox.js"
import type { AnswerForm, Config } from "./config.js"
import type { Reply } from "./exchange.js"
import * as Replies from "./reply.js"
import { answersAsJson } from "./routing.js"
import type { Session } from "./session.js"

/** Answers a POST from its stream (a stateless request has no session). */
export type Answer = (
  s: Session | undefined,
  stream: Outbox.OutStream,
  headers: Record<string, string>,
  onEnd: Effect.Effect<void>,
  jsonStatus: (message: Transport.Outgoing | undefined) => number,
  taken: Outbox.Item | undefined,
  as?: AnswerForm
) => Effect.Effect<Reply>

/** How a session's SSE streams are written. */
export interface StreamParams {
  /** The event id of each item of a stream, by the stream's key. */
  readonly eventIdOf: (key: string) => (seq: number) => string
  /** The `retry` of the priming event for a session of this revision (undefined: no priming event). */
  readonly primingFor: (revision: string | undefined) => number | undefined
  /** How long one SSE connection lasts for a session of this revision (undefined: as long as its stream). */
  readonly lifetimeFor: (revision: string | undefined) => Duration.Duration | undefined
}

/** The stream parameters of an endpoint. */
export const streamParams = (config: Config, store: EventStore.EventStoreService | undefined): StreamParams => {
  const primingFor = (revision: string | undefined) =>
    store !== undefined && revision !== undefined && revision >= "2025-11-25" ? config.retryMs : undefined
  return {
    eventIdOf: (key) => (seq) => `${key}.${seq}`,
    primingFor,
    lifetimeFor: (revision) => primingFor(revision) === undefined ? undefined : config.lifetime
  }
}

const shuttingDown = McpError.serverError("The server is shutting down")

/** The answerer of an endpoint. */
export const make = (
  config: Config,
  store: EventStore.EventStoreService | undefined,
  params: StreamParams
): Answer => {
  // A chain, not a generator: this runs for every POST that carries a request, in both eras (docs/benchmarks.md,
  // "HTTP shared costs, session 23").
  const answer: Answer = (s, stream, headers, onEnd, jsonStatus, taken, as = config.mode) =>
    taken !== undefined || as === "sse"
      ? Effect.suspend(() => answerWith(s, stream, headers, onEnd, jsonStatus, taken, as))
      : Effect.flatMap(
        Outbox.take(stream, onEnd),
        (first) => answerWith(s, stream, headers, onEnd, jsonStatus, first, as)
      )

  /** Answers with the stream's first item (undefined: an SSE answer that has taken none yet). */
  const answerWith = (
    s: Session | undefined,
    stream: Outbox.OutStream,
    headers: Record<string, string>,
    onEnd: Effect.Effect<void>,
    jsonStatus: (message: Transport.Outgoing | undefined) => number,
    first: Outbox.Item | undefined,
    as: AnswerForm
  ): Effect.Effect<Reply> => {
    // Every request of the POST was cancelled while its session lives: no response comes, so the answer is an
    // SSE stream that ends without an event (a JSON error here would read as the session's end).
    const cancelled = first !== undefined && Outbox.isEndMarker(first.message) && s !== undefined && !s.closed
    if (first !== undefined && !cancelled && answersAsJson(as, first.final)) {
      Outbox.tookFirst(stream, first)
      if (s !== undefined && first.final) s.streams.delete(stream.key)
      const message = Outbox.isEndMarker(first.message) ? undefined : first.message
      return Effect.as(
        onEnd,
        message !== undefined
          ? Replies.json(jsonStatus(message), JSON.stringify(message), headers)
          : s === undefined
          ? Replies.error(503, shuttingDown, headers)
          : Replies.sessionNotFound(headers)
      )
    }
    return Effect.map(
      Outbox.write(stream, {
        eventId: s !== undefined && store !== undefined ? params.eventIdOf(stream.key) : undefined,
        replay: [],
        first,
        primingRetryMs: s === undefined ? undefined : params.primingFor(s.revision),
        keepAlive: config.keepAlive,
        lifetime: s === undefined ? undefined : params.lifetimeFor(s.revision),
        onEnd: Effect.suspend(() => {
          if (s !== undefined && Outbox.isFinalTaken(stream)) s.streams.delete(stream.key)
          return onEnd
        })
      }),
      (body) => Replies.sse(body, { ...Replies.sseHeaders, ...headers })
    )
  }
  return answer
}
