/**
 * The event store behind resumable SSE streams (handshake eras): every message the server writes
 * to a session's SSE stream is appended under that stream, and a client that reconnects with
 * `Last-Event-ID` gets what followed that event on the same stream. Pluggable as a service; an
 * in-memory, bounded store is included.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** One stored event: its position in its stream and the JSON-RPC message (or batch) it carried. */
export interface StoredEvent {
  /** The event's sequence number within its stream (strictly increasing from 0). */
  readonly seq: number
  /** The message the event carried. */
  readonly message: unknown
}

/** Where events are kept, by session and stream. */
export interface EventStoreService {
  /** Appends a message to a stream of a session. */
  readonly append: (sessionId: string, streamId: string, seq: number, message: unknown) => Effect.Effect<void>
  /** The events of a session's stream after `seq`, oldest first (empty when none are known). */
  readonly after: (sessionId: string, streamId: string, seq: number) => Effect.Effect<ReadonlyArray<StoredEvent>>
  /** Forgets everything of a session (called when the session ends). */
  readonly forget: (sessionId: string) => Effect.Effect<void>
}

/** The event store resumable streams use; without one, streams are not resumable. */
export class EventStore extends Context.Tag("@effect-mcp/http/EventStore")<EventStore, EventStoreService>() {}

/** Bounds of the in-memory store. */
export interface MemoryOptions {
  /** Events kept per stream; older ones are dropped (default 1,000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session; the oldest stream is dropped first (default 1,000). */
  readonly maxStreamsPerSession?: number
}

/** An in-memory, bounded event store. */
export const makeMemory = (options: MemoryOptions = {}): EventStoreService => {
  const maxEvents = options.maxEventsPerStream ?? 1000
  const maxStreams = options.maxStreamsPerSession ?? 1000
  const sessions = new Map<string, Map<string, Array<StoredEvent>>>()
  return {
    append: (sessionId, streamId, seq, message) =>
      Effect.sync(() => {
        let streams = sessions.get(sessionId)
        if (streams === undefined) {
          streams = new Map()
          sessions.set(sessionId, streams)
        }
        let events = streams.get(streamId)
        if (events === undefined) {
          events = []
          streams.set(streamId, events)
          if (streams.size > maxStreams) streams.delete(streams.keys().next().value!)
        }
        events.push({ seq, message })
        if (events.length > maxEvents) events.splice(0, events.length - maxEvents)
      }),
    after: (sessionId, streamId, seq) =>
      Effect.sync(() => (sessions.get(sessionId)?.get(streamId) ?? []).filter((e) => e.seq > seq)),
    forget: (sessionId) => Effect.sync(() => void sessions.delete(sessionId))
  }
}

/** The in-memory event store as a Layer. */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<EventStore> =>
  Layer.sync(EventStore, () => makeMemory(options))
