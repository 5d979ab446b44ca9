/**
 * The server side of one SSE stream of a session: a queue of outgoing messages that outlives the
 * HTTP response carrying it (so that a cut connection loses nothing when an event store is
 * present), made when a reader first waits or a writer attaches (a POST answered as JSON never
 * needs one), and the writer that turns it into SSE bytes, with replay, priming and keep-alive.
 */
import type { Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { StoredEvent } from "../EventStore.js"
import * as Sse from "./sse.js"

/** One message on its way to the client. */
export interface Item {
  /** Its position in the stream. */
  readonly seq: number
  /** The message or batch. */
  readonly message: Transport.Outgoing
  /** Whether it is the last message of the stream (the response that settles its last request). */
  readonly final: boolean
}

/** One logical SSE stream (a POST's, or a session's standalone one). */
export interface OutStream {
  /** The stream's id within its session (`g` for the standalone stream, `p<n>` for a POST's). */
  readonly key: string
  /** How the stream bounds what waits for its reader. */
  readonly bound: Bound
  /**
   * Items queued while the stream has no queue, oldest first. A stream makes its queue (and that queue's shutdown
   * `Deferred`) only when a reader must wait or a writer attaches: a POST answered as JSON whose response came
   * within its call (every call of the "echo over HTTP" rows) never needs one, and they were about a tenth of a
   * session call's allocations (docs/benchmarks.md, "HTTP shared costs, session 23").
   */
  held: Array<Item>
  /** The queue a waiting reader or an attached writer takes from, once one needed it. */
  queue: Queue.Queue<Item> | undefined
  /** The requests whose responses this stream still awaits. */
  readonly pending: Set<JsonRpc.RequestId>
  nextSeq: number
  /** The seq of the last item a writer took from the queue (-1 before any). */
  lastTaken: number
  /** Whether a writer took the final item. */
  finalTaken: boolean
  /** How many writers are attached (0 or 1). */
  attached: number
  /** Ends the attached writer when a newer one takes over. */
  evict: Deferred.Deferred<void> | undefined
  /**
   * How many messages that are not final may wait for the reader, on a stream that applies backpressure (a POST's);
   * undefined for one that drops its oldest instead (the standalone stream).
   */
  readonly window: number | undefined
  /**
   * Room for messages that are not final, on a stream that applies backpressure: taken by each such push,
   * given back when a writer takes the message, so a handler that outruns its reader waits instead of
   * filling memory. The final message never waits. Made for the stream's first message that is not final: most
   * POSTs carry only their response (every call of the "echo over HTTP" rows), which never needs it.
   */
  credit: Effect.Semaphore | undefined
}

/** How a stream bounds what waits for its reader. */
export type Bound =
  /** Keep only the newest `n` messages (the standalone stream: nobody may be listening). */
  | { readonly sliding: number }
  /** At most `n` messages wait; a sender of one more waits for the reader (a POST's stream). */
  | { readonly backpressure: number }

/** Whether an item's message is the marker that ends a stream without a response (an empty batch). */
export const isEndMarker = (message: Transport.Outgoing): boolean => Array.isArray(message) && message.length === 0

/** The default bound of a POST's stream. */
export const defaultWindow = 256

/** Makes a stream; its queue is made when a reader first waits on it or a writer attaches. */
export const make = (key: string, bound: Bound = { backpressure: defaultWindow }): OutStream => ({
  key,
  bound,
  held: [],
  queue: undefined,
  pending: new Set(),
  nextSeq: 0,
  lastTaken: -1,
  finalTaken: false,
  attached: 0,
  evict: undefined,
  window: "backpressure" in bound ? bound.backpressure : undefined,
  credit: undefined
})

/** Holds an item until the stream has a queue, keeping only the newest ones on a sliding stream as its queue would. */
const hold = (stream: OutStream, item: Item): void => {
  stream.held.push(item)
  if ("sliding" in stream.bound && stream.held.length > stream.bound.sliding) stream.held.shift()
}

/** The stream's queue, made with what it held when nobody had needed a queue yet. */
const queueOf = (stream: OutStream): Effect.Effect<Queue.Queue<Item>> =>
  Effect.suspend(() => {
    if (stream.queue !== undefined) return Effect.succeed(stream.queue)
    const { bound } = stream
    return Effect.map("sliding" in bound ? Queue.sliding<Item>(bound.sliding) : Queue.unbounded<Item>(), (queue) => {
      // Another fiber may have made it meanwhile: the first one made is the stream's.
      if (stream.queue !== undefined) return stream.queue
      for (const item of stream.held) queue.unsafeOffer(item)
      stream.held = []
      stream.queue = queue
      return queue
    })
  })

/** Queues an item, on the queue when the stream has one, else among the items it holds. */
const enqueue = (stream: OutStream, item: Item): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (stream.queue !== undefined) return Queue.offer(stream.queue, item)
    hold(stream, item)
    return Effect.void
  })

/** Queues a message on the stream, waiting for room unless it is final. */
export const offer = (stream: OutStream, item: Item): Effect.Effect<void> =>
  item.final || stream.window === undefined
    ? enqueue(stream, item)
    : Effect.suspend(() => (stream.credit ??= Effect.unsafeMakeSemaphore(stream.window!)).take(1)).pipe(
      Effect.zipRight(enqueue(stream, item))
    )

/**
 * Takes the stream's next item, waiting for one (a JSON answer reads its first item this way); `onInterrupt` runs if
 * the wait is interrupted. An item that is already there (a handler that answered within its POST, as every call of
 * the "echo over HTTP" rows does) is taken without a queue or the wait's interruptible region.
 */
export const take = (stream: OutStream, onInterrupt: Effect.Effect<void>): Effect.Effect<Item> =>
  Effect.suspend(() => {
    if (stream.queue === undefined && stream.held.length > 0) return Effect.succeed(stream.held.shift()!)
    return Effect.flatMap(queueOf(stream), (queue) =>
      Effect.flatMap(
        Queue.poll(queue),
        (item) =>
          Option.isSome(item) ? Effect.succeed(item.value) : Effect.onInterrupt(Queue.take(queue), () => onInterrupt)
      ))
  })

/** The seq the stream's next item gets (the event store keys what it keeps by it). */
export const nextSeq = (stream: OutStream): number => stream.nextSeq++

/** Queues a message with the stream's next seq, waiting for room unless it is final. */
export const push = (stream: OutStream, message: Transport.Outgoing, final: boolean): Effect.Effect<void> =>
  Effect.suspend(() => offer(stream, { seq: stream.nextSeq++, message, final }))

/** Ends the stream without a response (its requests were cancelled, or their connection ended): never waits. */
export const end = (stream: OutStream): Effect.Effect<void> =>
  Effect.suspend(() => enqueue(stream, { seq: stream.nextSeq++, message: [], final: true }))

/** Records that the stream awaits the response to a request. */
export const expect = (stream: OutStream, id: JsonRpc.RequestId): void => void stream.pending.add(id)

/** Records that a request's response came (or never will): whether the stream was awaiting it. */
export const settle = (stream: OutStream, id: JsonRpc.RequestId): boolean => stream.pending.delete(id)

/** Whether the stream awaits no more responses. */
export const settled = (stream: OutStream): boolean => stream.pending.size === 0

/** Forgets every response the stream awaits; the ids it awaited. */
export const abandon = (stream: OutStream): ReadonlyArray<JsonRpc.RequestId> => {
  const ids = [...stream.pending]
  stream.pending.clear()
  return ids
}

/** Whether a writer is attached to the stream. */
export const isAttached = (stream: OutStream): boolean => stream.attached > 0

/** Whether a writer (or a JSON answer) took the stream's final item. */
export const isFinalTaken = (stream: OutStream): boolean => stream.finalTaken

/** Records that a JSON answer took the stream's first item (and, when it is final, the whole stream). */
export const tookFirst = (stream: OutStream, item: Item): void => {
  stream.finalTaken = item.final
}

/** Ends the attached writer, if any (its session ended). */
export const evict = (stream: OutStream): Effect.Effect<void> =>
  Effect.suspend(() =>
    stream.evict === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(stream.evict, undefined))
  )

/** A stream that already ended, for a writer that only replays what its client missed. */
export const makeEnded = (key: string): OutStream => {
  const stream = make(key)
  stream.finalTaken = true
  return stream
}

/** What a writer needs to know. */
export interface WriteOptions {
  /** Event ids for a resumable stream (undefined: events carry no id). */
  readonly eventId: ((seq: number) => string) | undefined
  /** Events to replay first (after a `Last-Event-ID`), oldest first. */
  readonly replay: ReadonlyArray<StoredEvent>
  /** An item already taken from the queue, written first. */
  readonly first: Item | undefined
  /** Send the priming event with this `retry` (2025-11-25 and later). */
  readonly primingRetryMs: number | undefined
  readonly keepAlive: Duration.Duration
  /** Closes the connection (not the stream) after this long, for SSE polling (2025-11-25); the client resumes. */
  readonly lifetime: Duration.Duration | undefined
  /** Runs when the writer ends, however it ends. */
  readonly onEnd: Effect.Effect<void>
}

/** The SSE body of a stream for one HTTP response; it ends after the final item (or when evicted or cut). */
export const write = (stream: OutStream, options: WriteOptions): Effect.Effect<Stream.Stream<Uint8Array>> =>
  Effect.gen(function*() {
    if (stream.evict !== undefined) yield* Deferred.succeed(stream.evict, undefined)
    const evict = yield* Deferred.make<void>()
    stream.evict = evict
    stream.attached++
    const eventId = options.eventId
    const replayedUpTo = options.replay.length > 0 ? options.replay[options.replay.length - 1]!.seq : -1
    const opening: Array<Uint8Array> = []
    if (options.primingRetryMs !== undefined && eventId !== undefined) {
      opening.push(Sse.priming(eventId(Math.max(stream.lastTaken, replayedUpTo)), options.primingRetryMs))
    } else opening.push(Sse.opening)
    for (const e of options.replay) opening.push(Sse.event(eventId?.(e.seq), e.message))
    const taken = (item: Item) =>
      Effect.suspend(() => {
        if (item.seq > stream.lastTaken) stream.lastTaken = item.seq
        if (item.final) stream.finalTaken = true
        return item.final || stream.credit === undefined ? Effect.void : stream.credit.release(1)
      })
    // An empty batch is the marker that ends a stream with no response (cancelled, or the session ended).
    const render = (item: Item): Uint8Array | undefined =>
      item.seq <= replayedUpTo || isEndMarker(item.message)
        ? undefined
        : Sse.event(eventId?.(item.seq), item.message)
    const live: Stream.Stream<Item> = stream.finalTaken && options.first === undefined
      ? Stream.empty
      : Stream.concat(
        options.first === undefined ? Stream.empty : Stream.make(options.first),
        options.first?.final === true
          ? Stream.empty
          : Stream.unwrap(Effect.map(queueOf(stream), (queue) => Stream.fromQueue(queue, { maxChunkSize: 1 })))
      ).pipe(Stream.takeUntil((item) => item.final))
    const events = Stream.concat(
      Stream.fromIterable(opening),
      live.pipe(
        Stream.tap(taken),
        Stream.filterMap((item) => Option.fromNullable(render(item)))
      )
    )
    const keepAlive = Stream.fromSchedule(Schedule.spaced(options.keepAlive)).pipe(Stream.as(Sse.keepAlive))
    return Stream.merge(events, keepAlive, { haltStrategy: "left" }).pipe(
      Stream.interruptWhen(
        options.lifetime === undefined
          ? Deferred.await(evict)
          : Effect.race(Deferred.await(evict), Effect.sleep(options.lifetime))
      ),
      Stream.ensuring(Effect.suspend(() => {
        stream.attached--
        if (stream.evict === evict) stream.evict = undefined
        return options.onEnd
      }))
    )
  })
