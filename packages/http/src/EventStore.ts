/**
 * The event store behind resumable SSE streams (handshake eras): every message the server writes
 * to a session's SSE stream is appended under that stream, and a client that reconnects with
 * `Last-Event-ID` gets what followed that event on the same stream. Pluggable as a service; an
 * in-memory, bounded store is included.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** One stored event: its position in its stream and the JSON-RPC message (or batch) it carried. */
export interface StoredEvent {
  /** The event's sequence number within its stream (strictly increasing from 0). */
  readonly seq: number
  /** The message the event carried. */
  readonly message: unknown
}

/**
 * The store could not be reached. A message it could not keep is still sent live (it is only not replayable); a
 * resumption it cannot read is answered 503.
 */
export class EventStoreError extends Data.TaggedError("EventStoreError")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  /** The reason, as the error's message. */
  override get message(): string {
    return this.reason
  }
}

/** Where events are kept, by session and stream. */
export interface EventStoreService {
  /** Appends a message to a stream of a session. */
  readonly append: (
    sessionId: string,
    streamId: string,
    seq: number,
    message: unknown
  ) => Effect.Effect<void, EventStoreError>
  /** The events of a session's stream after `seq`, oldest first (empty when none are known). */
  readonly after: (
    sessionId: string,
    streamId: string,
    seq: number
  ) => Effect.Effect<ReadonlyArray<StoredEvent>, EventStoreError>
  /** Forgets everything of a session (called when the session ends). */
  readonly forget: (sessionId: string) => Effect.Effect<void, EventStoreError>
}

/** The event store resumable streams use; without one, streams are not resumable. */
export class EventStore extends Context.Tag("@effect-mcp/http/EventStore")<EventStore, EventStoreService>() {}

/** Bounds of the in-memory store. */
export interface MemoryOptions {
  /** Events kept per stream; older ones are dropped (default 1,000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session; the one written longest ago is dropped first (default 1,000). */
  readonly maxStreamsPerSession?: number
  /**
   * Events kept per session, over all its streams: past it, the streams written longest ago are dropped first, then
   * the oldest events of the stream being written (default 1,000). This is what bounds a long-lived session's memory.
   */
  readonly maxEventsPerSession?: number
}

/** One session's streams, the one written longest ago first, and how many events they hold together. */
interface SessionEvents {
  readonly streams: Map<string, Array<StoredEvent>>
  total: number
}

/** Drops a session's oldest events until it holds at most `max`, sparing `current` (the stream just written) to the last. */
const trimSession = (session: SessionEvents, current: Array<StoredEvent>, max: number): void => {
  for (const [key, events] of session.streams) {
    if (session.total <= max) return
    if (events === current) continue
    session.streams.delete(key)
    session.total -= events.length
  }
  if (session.total > max) {
    const excess = session.total - max
    current.splice(0, excess)
    session.total -= excess
  }
}

/** An in-memory, bounded event store. */
export const makeMemory = (options: MemoryOptions = {}): EventStoreService => {
  const maxPerStream = Math.max(1, options.maxEventsPerStream ?? 1000)
  const maxStreams = Math.max(1, options.maxStreamsPerSession ?? 1000)
  const maxPerSession = Math.max(1, options.maxEventsPerSession ?? 1000)
  const sessions = new Map<string, SessionEvents>()
  return {
    append: (sessionId, streamId, seq, message) =>
      Effect.sync(() => {
        let session = sessions.get(sessionId)
        if (session === undefined) {
          session = { streams: new Map(), total: 0 }
          sessions.set(sessionId, session)
        }
        let events = session.streams.get(streamId)
        if (events !== undefined) {
          // Written again: it becomes the newest stream, the last one the bounds drop.
          session.streams.delete(streamId)
          session.streams.set(streamId, events)
        } else {
          events = []
          session.streams.set(streamId, events)
          if (session.streams.size > maxStreams) {
            const [oldest, dropped] = session.streams.entries().next().value!
            session.streams.delete(oldest)
            session.total -= dropped.length
          }
        }
        events.push({ seq, message })
        session.total++
        if (events.length > maxPerStream) {
          const excess = events.length - maxPerStream
          events.splice(0, excess)
          session.total -= excess
        }
        if (session.total > maxPerSession) trimSession(session, events, maxPerSession)
      }),
    after: (sessionId, streamId, seq) =>
      Effect.sync(() => (sessions.get(sessionId)?.streams.get(streamId) ?? []).filter((e) => e.seq > seq)),
    forget: (sessionId) => Effect.sync(() => void sessions.delete(sessionId))
  }
}

/** The in-memory event store as a Layer. */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<EventStore> =>
  Layer.sync(EventStore, () => makeMemory(options))
