/**
 * The in-memory event store's bounds: per stream, per session in streams, and per session in events, so that a
 * long-lived session's stored events stop growing.
 */
import { EventStore } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

/** Appends `count` events to a stream, numbered from `from`. */
const appendTo = (store: EventStore.EventStoreService, session: string, stream: string, count: number, from = 0) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => from + i),
    (seq) => store.append(session, stream, seq, { jsonrpc: "2.0", method: "m", params: { seq } }),
    { discard: true }
  )

/** The seqs a stream still holds. */
const seqsOf = (store: EventStore.EventStoreService, session: string, stream: string) =>
  Effect.map(store.after(session, stream, -1), (events) => events.map((e) => e.seq))

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

describe("EventStore.makeMemory", () => {
  it.effect("replays what followed an event of the same stream", () =>
    Effect.gen(function*() {
      const store = EventStore.makeMemory()
      yield* appendTo(store, "s", "p1", 5)
      yield* appendTo(store, "s", "p2", 3)
      expect((yield* store.after("s", "p1", 2)).map((e) => e.seq)).toEqual([3, 4])
      expect((yield* store.after("s", "p1", 2))[0]!.message).toEqual({
        jsonrpc: "2.0",
        method: "m",
        params: { seq: 3 }
      })
      expect(yield* seqsOf(store, "s", "p2")).toEqual([0, 1, 2])
      expect(yield* seqsOf(store, "other", "p1")).toEqual([])
    }))

  it.effect("a session past its events drops its oldest streams first, then the oldest events of the one written", () =>
    Effect.gen(function*() {
      const store = EventStore.makeMemory({ maxEventsPerSession: 10 })
      yield* appendTo(store, "s", "p1", 4)
      yield* appendTo(store, "s", "p2", 4)
      yield* appendTo(store, "s", "p3", 4)
      // 12 events: p1, the oldest stream, goes whole.
      expect(yield* seqsOf(store, "s", "p1")).toEqual([])
      expect(yield* seqsOf(store, "s", "p2")).toEqual(range(0, 4))
      expect(yield* seqsOf(store, "s", "p3")).toEqual(range(0, 4))
      // p3 grows past the bound on its own: p2 goes, then p3 keeps its newest 10.
      yield* appendTo(store, "s", "p3", 10, 4)
      expect(yield* seqsOf(store, "s", "p2")).toEqual([])
      expect(yield* seqsOf(store, "s", "p3")).toEqual(range(4, 14))
      // Another session is counted apart.
      yield* appendTo(store, "t", "p1", 10)
      expect(yield* seqsOf(store, "t", "p1")).toEqual(range(0, 10))
      expect(yield* seqsOf(store, "s", "p3")).toEqual(range(4, 14))
    }))

  it.effect("a stream written again outlives the streams written before it (the standalone stream, say)", () =>
    Effect.gen(function*() {
      const store = EventStore.makeMemory({ maxEventsPerSession: 6 })
      yield* appendTo(store, "s", "g", 2)
      yield* appendTo(store, "s", "p1", 2)
      yield* appendTo(store, "s", "g", 2, 2)
      yield* appendTo(store, "s", "p2", 1)
      // 7 events: p1 is the stream written longest ago, so it goes, not g.
      expect(yield* seqsOf(store, "s", "p1")).toEqual([])
      expect(yield* seqsOf(store, "s", "g")).toEqual(range(0, 4))
      expect(yield* seqsOf(store, "s", "p2")).toEqual([0])
    }))

  it.effect("a stream keeps its newest events, and a session its newest streams", () =>
    Effect.gen(function*() {
      const store = EventStore.makeMemory({ maxEventsPerStream: 3, maxStreamsPerSession: 2 })
      yield* appendTo(store, "s", "p1", 5)
      expect(yield* seqsOf(store, "s", "p1")).toEqual([2, 3, 4])
      yield* appendTo(store, "s", "p2", 1)
      yield* appendTo(store, "s", "p3", 1)
      expect(yield* seqsOf(store, "s", "p1")).toEqual([])
      expect(yield* seqsOf(store, "s", "p2")).toEqual([0])
      expect(yield* seqsOf(store, "s", "p3")).toEqual([0])
    }))

  it.effect("by default a session keeps at most 1,000 events however many streams it writes; forget drops them all", () =>
    Effect.gen(function*() {
      const store = EventStore.makeMemory()
      // 2,000 streams of 5 events each, as a long-lived session's SSE answers would be.
      for (let stream = 0; stream < 2_000; stream++) yield* appendTo(store, "s", `p${stream}`, 5)
      let kept = 0
      for (let stream = 0; stream < 2_000; stream++) kept += (yield* seqsOf(store, "s", `p${stream}`)).length
      expect(kept).toBe(1_000)
      // The newest are the ones kept.
      expect(yield* seqsOf(store, "s", "p1999")).toEqual(range(0, 5))
      expect(yield* seqsOf(store, "s", "p1799")).toEqual([])
      yield* store.forget("s")
      expect(yield* seqsOf(store, "s", "p1999")).toEqual([])
    }))
})
