/**
 * The protocol engine both sides share: receives each frame from a Transport as it arrives, runs each
 * incoming request in its own fiber (a FiberMap keyed by request id, started at once), interrupts it on
 * `notifications/cancelled`, and correlates our own outgoing requests with their responses, with
 * progress, timeouts and cancellation on the wire. It knows nothing of MCP methods beyond cancellation and
 * progress: the session above it (server or client) decides what each request means.
 */
import { Codec, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { ConnectionClosed } from "../Errors.js"
import * as Transport from "../Transport.js"
import * as FrameLimits from "./frameLimits.js"
import { isRecord } from "./record.js"
import * as Scoped from "./scoped.js"

/** A progress update for one of our requests. */
export interface Progress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** Options of one outgoing request. */
export interface RequestOptions {
  /** How long to wait for the response (default: the engine's, 60 s). */
  readonly timeout?: Duration.DurationInput
  /** Whether a progress notification restarts the timeout (default true). */
  readonly resetTimeoutOnProgress?: boolean
  /** A cap on the total time, however much progress arrives. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Called for each progress notification; setting it attaches a progress token. */
  readonly onProgress?: (progress: Progress) => void
  /** The incoming request this request is made on behalf of. */
  readonly relatedRequestId?: JsonRpc.RequestId
  /** Called with the id the request is sent under (e.g. to recognise notifications tagged with it). */
  readonly onId?: (id: JsonRpc.RequestId) => void
}

/** What can fail an outgoing request. */
export type RequestFailure = McpError.McpError | ConnectionClosed | Transport.RequestError

/** How the session answers what the peer sends; `E` is what a request's handler fails with. */
export interface Handlers<E> {
  /** Answers one request. */
  readonly onRequest: (request: JsonRpc.Request, frame: Transport.Frame) => Effect.Effect<Record<string, unknown>, E>
  /** The error object a request's failure is sent as. */
  readonly toWire: (error: E, request: JsonRpc.Request, frame: Transport.Frame) => JsonRpc.ErrorObject
  /** Handles one notification (cancellation and progress are the engine's and do not reach here). */
  readonly onNotification: (notification: JsonRpc.Notification, frame: Transport.Frame) => Effect.Effect<void>
  /** Whether a JSON array (a batch) is acceptable now (only from revision 2025-03-26 peers). */
  readonly acceptsBatch: () => boolean
}

/** Engine settings. */
export interface EngineOptions {
  /** At most this many incoming requests run at once (default: unbounded). */
  readonly concurrency?: number
  /** The default timeout of outgoing requests (default 60 s). */
  readonly defaultTimeout?: Duration.DurationInput
  /** How late past its deadline a timeout may fire, so that close deadlines share a sweep (default 10 ms). */
  readonly timeoutResolution?: Duration.DurationInput
  /** Frames nested deeper than this are refused before anything reads them (default {@link defaultMaxDepth}). */
  readonly maxDepth?: number
  /** A JSON-RPC batch of more messages than this is refused whole (default {@link defaultMaxBatchSize}). */
  readonly maxBatchSize?: number
}

/** The default bound on a frame's nesting (see `frameLimits`). */
export const defaultMaxDepth = FrameLimits.defaultMaxDepth

/** The default bound on a batch's length. */
export const defaultMaxBatchSize = FrameLimits.defaultMaxBatchSize

/** A running engine over one connection. */
export interface Engine {
  /** Sends a request and waits for its result. Interrupting the caller cancels it on the wire. */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<Record<string, unknown>, RequestFailure>
  /** Sends a notification. */
  readonly notify: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: Transport.SendOptions
  ) => Effect.Effect<void, Transport.TransportError>
  /** Completes when the connection has ended. */
  readonly closed: Effect.Effect<void>
  /** Whether the connection has ended. */
  readonly isClosed: () => boolean
  /** How many incoming requests are running. */
  readonly inFlight: () => number
  /** How many of our requests await a response. */
  readonly pendingCount: () => number
  /** Runs side work on a fiber of the connection (interrupted when the connection's scope closes). */
  readonly background: (effect: Effect.Effect<void>) => void
}

interface Pending {
  readonly method: string
  readonly timeoutMs: number
  readonly deadlineMs: number
  /** Resumes the caller, once it waits (an async callback, lighter than a Deferred per request). */
  resume: ((outcome: Effect.Effect<Record<string, unknown>, RequestFailure>) => void) | undefined
  /** The fiber that made the request, while it has `abandonOnExit` among its observers. */
  caller: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** Abandons the request when its caller ends first (the caller was interrupted while it sent or waited). */
  readonly abandonOnExit: () => void
  /** The outcome, when it came before the caller waited. */
  outcome: Effect.Effect<Record<string, unknown>, RequestFailure> | undefined
  readonly onProgress: ((p: Progress) => void) | undefined
  readonly resets: boolean
  lastActivity: number
  /** The incoming request this one is made on behalf of (what its cancellation is related to). */
  readonly related: JsonRpc.RequestId | undefined
}

const internalError: JsonRpc.ErrorObject = { code: McpError.codes.InternalError, message: "Internal error" }

/** Stops watching a request's caller for its end: the request is settled or its caller has its outcome. */
const release = (entry: Pending): void => {
  if (entry.caller === undefined) return
  entry.caller.removeObserver(entry.abandonOnExit)
  entry.caller = undefined
}

/** Settles a pending request: resumes its caller, or keeps the outcome for when it waits. */
const complete = (entry: Pending, outcome: Effect.Effect<Record<string, unknown>, RequestFailure>): void => {
  release(entry)
  if (entry.resume !== undefined) {
    const resume = entry.resume
    entry.resume = undefined
    resume(outcome)
  } else entry.outcome ??= outcome
}

const looksLikeResponse = FrameLimits.looksLikeResponse

// One sweeper fiber per connection fails expired requests, so a request costs no timer of its own. It wakes at the
// earliest deadline it knows of, or after `idleCheck` to see whether anything still waits, and stops when nothing
// does: an idle connection holds no fiber for it. A request whose deadline comes more than the resolution before the
// planned sweep restarts it, so short timeouts fire on time.
const idleCheck = 50

const expiryOf = (entry: Pending) => Math.min(entry.lastActivity + entry.timeoutMs, entry.deadlineMs)

/**
 * One connection's engine: its state as fields and its operations on the prototype, so that a connection allocates
 * a few objects rather than a closure per operation (only `deliver`, handed to the transport, is bound).
 */
class Connection<E> implements Engine {
  readonly #pending = new Map<JsonRpc.RequestId, Pending>()
  // The fibers still running are kept in a FiberMap (requests, by id) and a FiberSet (side work), each made on first
  // use (about 2 KB each): a connection whose requests and side work all finish at once holds neither.
  #inflight: FiberMap.FiberMap<JsonRpc.RequestId> | undefined
  #sideWork: FiberSet.FiberSet | undefined
  #sweeper: Fiber.RuntimeFiber<void> | undefined
  #sweepAt = Number.POSITIVE_INFINITY
  /** Made for the first caller of `closed` before the end. */
  #closedSignal: Deferred.Deferred<void> | undefined
  #closed = false
  #nextId = 0
  readonly #defaultTimeout: number
  readonly #resolution: number
  readonly #maxDepth: number
  readonly #maxBatchSize: number

  constructor(
    private readonly handlers: Handlers<E>,
    private readonly transport: Transport.TransportService,
    private readonly scope: Scope.Scope,
    private readonly runFork: <A, E2>(effect: Effect.Effect<A, E2>) => Fiber.RuntimeFiber<A, E2>,
    private readonly clock: Clock.Clock,
    private readonly semaphore: Effect.Semaphore | undefined,
    options: EngineOptions
  ) {
    this.#defaultTimeout = Duration.toMillis(options.defaultTimeout ?? Duration.seconds(60))
    this.#resolution = Duration.toMillis(options.timeoutResolution ?? Duration.millis(10))
    this.#maxDepth = options.maxDepth ?? defaultMaxDepth
    this.#maxBatchSize = options.maxBatchSize ?? defaultMaxBatchSize
  }

  // ---------- the Engine ----------

  get closed(): Effect.Effect<void> {
    return Effect.suspend(() =>
      this.#closed ? Effect.void : Deferred.await(this.#closedSignal ??= Deferred.unsafeMake<void>(FiberId.none))
    )
  }

  isClosed(): boolean {
    return this.#closed
  }

  inFlight(): number {
    return this.#inflight === undefined ? 0 : Effect.runSync(FiberMap.size(this.#inflight))
  }

  pendingCount(): number {
    return this.#pending.size
  }

  background(effect: Effect.Effect<void>): void {
    this.#runInBackground(effect)
  }

  notify(
    method: string,
    params: Record<string, unknown> | undefined,
    sendOptions?: Transport.SendOptions
  ): Effect.Effect<void, Transport.TransportError> {
    return this.transport.send(JsonRpc.notification(method, params), sendOptions)
  }

  // A request settles without an exit handler around it (an uninterruptible region per call costs more than the
  // rest of an in-memory round trip): responses, timeouts and the connection's end take it out of `pending`
  // themselves, and a caller interrupted while the request is being sent (a transport waiting for room) or while
  // it waits for the response abandons it, and cancels it on the wire, from an observer of the caller's fiber
  // (added before the send and removed when the request settles), once that fiber has ended.
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: RequestOptions = {}
  ): Effect.Effect<Record<string, unknown>, RequestFailure> {
    return Effect.withFiberRuntime((caller) => {
      if (this.#closed) return Effect.fail(new ConnectionClosed({ reason: "the connection has ended" }))
      const id = this.#nextId++
      const now = this.clock.unsafeCurrentTimeMillis()
      const related = requestOptions.relatedRequestId
      const entry: Pending = {
        caller,
        abandonOnExit: () => this.#runInBackground(this.#abandon(id, entry)),
        method,
        timeoutMs: requestOptions.timeout === undefined
          ? this.#defaultTimeout
          : Duration.toMillis(requestOptions.timeout),
        deadlineMs: requestOptions.maxTotalTimeout === undefined
          ? Number.POSITIVE_INFINITY
          : now + Duration.toMillis(requestOptions.maxTotalTimeout),
        resume: undefined,
        outcome: undefined,
        onProgress: requestOptions.onProgress,
        resets: requestOptions.resetTimeoutOnProgress ?? true,
        lastActivity: now,
        related
      }
      this.#pending.set(id, entry)
      this.#sweepBy(now, expiryOf(entry))
      requestOptions.onId?.(id)
      const withToken = requestOptions.onProgress === undefined ? params : {
        ...params,
        _meta: { ...(isRecord(params?._meta) ? params._meta : {}), progressToken: id }
      }
      caller.addObserver(entry.abandonOnExit)
      // A request that expired before the caller got to send it (a fiber that yielded under load for longer than a
      // short timeout) is never sent: its cancellation went out already, and the peer would run it for nothing.
      const send = Effect.suspend(() =>
        this.#pending.get(id) === entry
          ? this.transport.send(
            JsonRpc.request(id, method, withToken),
            related === undefined ? undefined : { relatedRequestId: related }
          )
          : Effect.void
      )
      return Effect.matchCauseEffect(send, {
        onFailure: (cause) => {
          release(entry)
          this.#pending.delete(id)
          return Effect.failCause(cause)
        },
        onSuccess: () => outcomeOf(entry)
      })
    })
  }

  // ---------- fibers ----------

  #inflightMap(): FiberMap.FiberMap<JsonRpc.RequestId> {
    return (this.#inflight ??= Effect.runSync(Scope.extend(FiberMap.make<JsonRpc.RequestId>(), this.scope)))
  }

  #isInFlight(id: JsonRpc.RequestId): boolean {
    return this.#inflight !== undefined && FiberMap.unsafeHas(this.#inflight, id)
  }

  /** Starts side work at once; a fiber still running is kept until it ends or the connection's scope closes. */
  #runInBackground<A>(effect: Effect.Effect<A>): Fiber.RuntimeFiber<A> {
    const fiber = this.runFork(effect)
    if (fiber.unsafePoll() === null) {
      FiberSet.unsafeAdd(this.#sideWork ??= Effect.runSync(Scope.extend(FiberSet.make(), this.scope)), fiber)
    }
    return fiber
  }

  #sendQuietly(message: Transport.Outgoing, sendOptions?: Transport.SendOptions): Effect.Effect<void> {
    return this.transport.send(message, sendOptions).pipe(
      Effect.catchAll((e) => Effect.logDebug("effect-mcp: could not send a message", e.reason))
    )
  }

  /**
   * Sends the answer to request `id`. One the transport cannot send while the connection lives (a result that does
   * not encode as JSON, such as a value nested too deep for `JSON.stringify`) is replaced by -32603, so that the
   * request still gets exactly one answer.
   */
  #sendAnswer(id: JsonRpc.RequestId, response: JsonRpc.Message): Effect.Effect<void> {
    const sendOptions = { relatedRequestId: id }
    return this.transport.send(response, sendOptions).pipe(
      Effect.catchAll((e) =>
        this.#closed
          ? Effect.logDebug("effect-mcp: could not send an answer", e.reason)
          : Effect.zipRight(
            Effect.logWarning(`effect-mcp: the answer to a request could not be sent, -32603 instead: ${e.reason}`),
            this.#sendQuietly(JsonRpc.failure(id, internalError), sendOptions)
          )
      )
    )
  }

  // ---------- incoming requests ----------

  /** Runs a request's handler and hands the response it deserves to `respond` (none when interrupted). */
  #answer(
    request: JsonRpc.Request,
    frame: Transport.Frame,
    respond: (response: JsonRpc.Message) => Effect.Effect<void>
  ): Effect.Effect<void> {
    const handlers = this.handlers
    return Effect.matchCauseEffect(handlers.onRequest(request, frame), {
      onSuccess: (result) => respond(JsonRpc.success(request.id, result)),
      onFailure: (cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          return respond(JsonRpc.failure(request.id, handlers.toWire(failure.value, request, frame)))
        }
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
        return Effect.logError(`effect-mcp: the handler of ${request.method} failed`, cause).pipe(
          Effect.zipRight(respond(JsonRpc.failure(request.id, internalError)))
        )
      }
    })
  }

  #bounded<A, E2>(effect: Effect.Effect<A, E2>): Effect.Effect<A, E2> {
    return this.semaphore === undefined ? effect : this.semaphore.withPermits(1)(effect)
  }

  /** Starts answering a request in a fiber of its own, at once (a handler that needs no wait completes here). */
  #startRequest(request: JsonRpc.Request, frame: Transport.Frame): void {
    if (this.#isInFlight(request.id)) {
      this.background(this.#sendQuietly(
        JsonRpc.failure(request.id, {
          code: McpError.codes.InvalidRequest,
          message: `Request id ${JSON.stringify(request.id)} is already in use by a request in flight`
        })
      ))
      return
    }
    const fiber = this.runFork(
      this.#bounded(this.#answer(request, frame, (response) => this.#sendAnswer(request.id, response)))
    )
    // A request answered without waiting is over already: only one still running is in flight.
    if (fiber.unsafePoll() === null) FiberMap.unsafeSet(this.#inflightMap(), request.id, fiber)
  }

  // ---------- responses to our requests ----------

  /**
   * Settles our request `id` with what its response says. A response for no such request is dropped: quietly (at
   * debug level) when it answers a request of ours that has settled already (timed out, cancelled or abandoned, as
   * the answer may cross the cancellation on the wire), with a warning when it answers none we ever sent.
   */
  #settleId(
    id: JsonRpc.RequestId | null,
    outcome: () => Effect.Effect<Record<string, unknown>, RequestFailure>,
    why = "unknown request id"
  ): void {
    const entry = id === null ? undefined : this.#pending.get(id)
    if (entry === undefined || id === null) {
      this.background(
        this.#wasSent(id)
          ? Effect.logDebug(`effect-mcp: dropped a late response to request ${McpError.quote(id)}, settled already`)
          : Effect.logWarning(`effect-mcp: dropped a response for ${why} ${McpError.quote(id)}`)
      )
      return
    }
    this.#pending.delete(id)
    complete(entry, outcome())
  }

  /** Whether `id` is one this connection gave a request of its own (ids are numbered from 0). */
  #wasSent(id: JsonRpc.RequestId | null): boolean {
    return typeof id === "number" && Number.isInteger(id) && id >= 0 && id < this.#nextId
  }

  #settle(response: JsonRpc.Response): void {
    this.#settleId(
      response.id,
      () => "error" in response ? Effect.fail(McpError.fromWire(response.error)) : Effect.succeed(response.result)
    )
  }

  // ---------- notifications the engine owns ----------

  #onProgress(params: Record<string, unknown> | undefined): void {
    const token = params?.progressToken
    const entry = typeof token === "string" || typeof token === "number" ? this.#pending.get(token) : undefined
    if (entry === undefined || entry.onProgress === undefined) {
      this.background(Effect.logDebug(`effect-mcp: progress for unknown token ${JSON.stringify(token)}`))
      return
    }
    if (typeof params?.progress !== "number") return
    if (entry.resets) entry.lastActivity = this.clock.unsafeCurrentTimeMillis()
    entry.onProgress({
      progress: params.progress,
      ...(typeof params.total === "number" ? { total: params.total } : {}),
      ...(typeof params.message === "string" ? { message: params.message } : {})
    })
  }

  #onCancelled(params: Record<string, unknown> | undefined): void {
    const id = params?.requestId
    if ((typeof id === "string" || typeof id === "number") && this.#isInFlight(id)) {
      this.background(FiberMap.remove(this.#inflightMap(), id))
    }
  }

  // ---------- receiving ----------

  /** Acts on the verdict on a frame nested too deep; returns the error response to send, if any. */
  #refused(refusal: FrameLimits.Refusal): JsonRpc.ErrorResponse | undefined {
    switch (refusal._tag) {
      case "Answer":
        return refusal.response
      case "FailRequest":
        this.#settleId(
          refusal.id,
          () => Effect.fail(new Transport.TransportError({ reason: `the response was refused: ${refusal.reason}` })),
          `request id (the response was ${refusal.reason})`
        )
        return undefined
      case "Drop":
        this.background(Effect.logDebug(`effect-mcp: dropped a notification ${refusal.reason}`))
        return undefined
    }
  }

  /** A frame that is no JSON-RPC message: a request gets -32600; a response fails the request it answers, at once. */
  #invalid(u: unknown, reason: string): void {
    if (!looksLikeResponse(u)) {
      return this.background(this.#sendQuietly(
        JsonRpc.failure(JsonRpc.salvageId(u), { code: McpError.codes.InvalidRequest, message: reason })
      ))
    }
    this.#settleId(
      JsonRpc.salvageId(u),
      () => Effect.fail(new Transport.TransportError({ reason: `the response was invalid: ${reason}` })),
      `request id (an invalid response: ${reason})`
    )
  }

  #handleMessage(message: JsonRpc.Message, frame: Transport.Frame): void {
    if (!("method" in message)) return this.#settle(message)
    if (JsonRpc.isRequest(message)) return this.#startRequest(message, frame)
    switch (message.method) {
      case "notifications/cancelled":
        return this.#onCancelled(message.params)
      case "notifications/progress":
        return this.#onProgress(message.params)
      default:
        // Started at once: a handler that needs no wait is done before the next frame is handed over.
        this.background(
          this.handlers.onNotification(message, frame).pipe(
            Effect.catchAllCause((cause) => Effect.logError(`effect-mcp: notification ${message.method} failed`, cause))
          )
        )
    }
  }

  #handleBatch(items: ReadonlyArray<unknown>, frame: Transport.Frame): Effect.Effect<void> {
    const engine = this
    return Effect.gen(function*() {
      const slots: Array<Deferred.Deferred<Option.Option<JsonRpc.Message>>> = []
      for (const item of items) {
        const tooDeep = FrameLimits.checkDepth(item, engine.#maxDepth)
        if (tooDeep !== undefined) {
          const refused = engine.#refused(tooDeep)
          if (refused !== undefined) {
            const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
            yield* Deferred.succeed(slot, Option.some<JsonRpc.Message>(refused))
            slots.push(slot)
          }
          continue
        }
        const decoded = JsonRpc.decodeMessage(item)
        if (Either.isLeft(decoded)) {
          if (!looksLikeResponse(item)) {
            const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
            yield* Deferred.succeed(
              slot,
              Option.some(JsonRpc.failure(JsonRpc.salvageId(item), {
                code: McpError.codes.InvalidRequest,
                message: `Invalid request: ${Codec.describe(decoded.left)}`
              }))
            )
            slots.push(slot)
          }
          continue
        }
        const message = decoded.right
        if (!JsonRpc.isRequest(message)) {
          engine.#handleMessage(message, frame)
          continue
        }
        const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
        slots.push(slot)
        if (engine.#isInFlight(message.id)) {
          yield* Deferred.succeed(
            slot,
            Option.some(JsonRpc.failure(message.id, {
              code: McpError.codes.InvalidRequest,
              message: `Request id ${JSON.stringify(message.id)} is already in use`
            }))
          )
          continue
        }
        yield* FiberMap.run(
          engine.#inflightMap(),
          message.id,
          engine.#bounded(engine.#answer(message, frame, (response) => Deferred.succeed(slot, Option.some(response))))
            .pipe(
              Effect.onInterrupt(() => Deferred.succeed(slot, Option.none()))
            )
        )
      }
      if (slots.length === 0) return
      yield* Effect.forkIn(
        Effect.forEach(slots, Deferred.await).pipe(
          Effect.flatMap((responses) => {
            const out = responses.flatMap((r) => (Option.isSome(r) ? [r.value] : []))
            return out.length === 0 ? Effect.void : engine.#sendQuietly(out)
          })
        ),
        engine.scope
      )
    })
  }

  /**
   * Hands one frame from the transport to the engine (bound: the transport calls it). Whatever the frame holds,
   * nothing thrown while reading it reaches the transport: a defect is that frame's -32603 (when it is a request
   * with a readable id), never the connection's end.
   */
  readonly deliver: Transport.Deliver = (incoming) => {
    if (this.#closed) return
    try {
      this.#receive(incoming)
    } catch (defect) {
      this.#receiveFailed(incoming, defect)
    }
  }

  #receiveFailed(incoming: Transport.Incoming, defect: unknown): void {
    const u = incoming._tag === "Malformed" ? undefined : incoming.message
    const id = Array.isArray(u) || looksLikeResponse(u) ? null : JsonRpc.salvageId(u)
    this.background(Effect.zipRight(
      Effect.logError("effect-mcp: a frame could not be handled", Cause.die(defect)),
      id === null ? Effect.void : this.#sendQuietly(JsonRpc.failure(id, internalError))
    ))
  }

  #receive(incoming: Transport.Incoming): void {
    if (incoming._tag === "Malformed") {
      // A response too large to parse, or one the transport could not get: its request fails now, with what the
      // transport saw (responses are never answered).
      if (incoming.responseTo !== undefined) {
        return this.#settleId(
          incoming.responseTo,
          () =>
            Effect.fail(
              incoming.failure ??
                new Transport.TransportError({ reason: `the response was dropped: ${incoming.reason}` })
            ),
          `request id (${incoming.reason})`
        )
      }
      return this.background(this.#sendQuietly(
        JsonRpc.failure(null, { code: McpError.codes.ParseError, message: `Parse error: ${incoming.reason}` })
      ))
    }
    const u = incoming.message
    if (Array.isArray(u)) {
      if (u.length === 0) {
        return this.background(this.#sendQuietly(
          JsonRpc.failure(null, { code: McpError.codes.InvalidRequest, message: "Invalid request: empty batch" })
        ))
      }
      const tooLong = FrameLimits.checkBatch(u, this.#maxBatchSize)
      if (tooLong !== undefined) return this.background(this.#sendQuietly(tooLong))
      if (!this.handlers.acceptsBatch()) {
        return this.background(this.#sendQuietly(JsonRpc.failure(null, {
          code: McpError.codes.InvalidRequest,
          message: "Invalid request: JSON-RPC batches are only accepted from revision 2025-03-26 peers"
        })))
      }
      return this.background(this.#handleBatch(u, incoming))
    }
    const tooDeep = FrameLimits.checkDepth(u, this.#maxDepth)
    if (tooDeep !== undefined) {
      const refused = this.#refused(tooDeep)
      return refused === undefined ? undefined : this.background(this.#sendQuietly(refused))
    }
    const decoded = JsonRpc.decodeMessage(u)
    return Either.isLeft(decoded)
      ? this.#invalid(u, `Invalid request: ${Codec.describe(decoded.left)}`)
      : this.#handleMessage(decoded.right, incoming)
  }

  // ---------- the end ----------

  shutdown(
    reason: string,
    exit: { readonly exitCode?: number; readonly stderrTail?: string } = {}
  ): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.#closed) return Effect.void
      this.#closed = true
      const waiting = [...this.#pending.values()]
      this.#pending.clear()
      for (const p of waiting) complete(p, Effect.fail(new ConnectionClosed({ reason, ...exit })))
      if (this.#sweeper !== undefined) {
        this.#sweeper.unsafeInterruptAsFork(FiberId.none)
        this.#sweeper = undefined
      }
      const signal = this.#closedSignal
      return Effect.zipRight(
        this.#inflight === undefined ? Effect.void : FiberMap.clear(this.#inflight),
        signal === undefined ? Effect.void : Deferred.succeed(signal, undefined)
      )
    })
  }

  /** What the end of the transport means: the peer went away, or the transport failed (logged). */
  ended(failure?: Transport.TransportError): Effect.Effect<void> {
    return failure === undefined
      ? this.shutdown("the peer closed the connection")
      : Effect.zipRight(
        Effect.logDebug("effect-mcp: transport failed", failure),
        this.shutdown(`the transport failed: ${failure.reason}`, {
          ...(failure.exitCode === undefined ? {} : { exitCode: failure.exitCode }),
          ...(failure.stderrTail === undefined ? {} : { stderrTail: failure.stderrTail })
        })
      )
  }

  // ---------- timeouts ----------

  /** Fails the requests expired at `now`; the earliest deadline of those left (infinite when none). */
  #expire(now: number): number {
    let next = Number.POSITIVE_INFINITY
    const expired: Array<[JsonRpc.RequestId, Pending]> = []
    for (const [id, entry] of this.#pending) {
      const at = expiryOf(entry)
      if (now >= at) expired.push([id, entry])
      else if (at < next) next = at
    }
    for (const [id, entry] of expired) {
      this.#pending.delete(id)
      this.#runInBackground(this.#cancel(id, "The request timed out", entry.related))
      complete(
        entry,
        Effect.fail(
          new McpError.RequestTimeout({
            message: `Request ${entry.method} (id ${JSON.stringify(id)}) timed out after ${
              now - entry.lastActivity
            } ms`,
            method: entry.method
          })
        )
      )
    }
    return next
  }

  #sweepLoop(): Effect.Effect<void> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.suspend(() => {
        if (now < this.#sweepAt) {
          return Effect.zipRight(Effect.sleep(Duration.millis(this.#sweepAt - now)), this.#sweepLoop())
        }
        const next = this.#expire(now)
        if (this.#pending.size === 0) {
          this.#sweeper = undefined
          this.#sweepAt = Number.POSITIVE_INFINITY
          return Effect.void
        }
        this.#sweepAt = Math.min(next, now + idleCheck)
        return this.#sweepLoop()
      }))
  }

  /** Makes sure a sweep comes by `at` (within the resolution), for a request sent at `now`. */
  #sweepBy(now: number, at: number): void {
    if (this.#sweeper !== undefined && at + this.#resolution >= this.#sweepAt) return
    const previous = this.#sweeper
    this.#sweepAt = Math.min(at, now + idleCheck)
    this.#sweeper = this.runFork(this.#sweepLoop())
    if (previous !== undefined) previous.unsafeInterruptAsFork(previous.id())
  }

  #cancel(id: JsonRpc.RequestId, reason: string, relatedRequestId: JsonRpc.RequestId | undefined): Effect.Effect<void> {
    return this.#closed
      ? Effect.void
      : this.#sendQuietly(
        JsonRpc.notification("notifications/cancelled", { requestId: id, reason }),
        relatedRequestId === undefined ? undefined : { relatedRequestId }
      )
  }

  /** Forgets our request `id` whose caller is gone, and tells the peer (if it is still waiting for the response). */
  #abandon(id: JsonRpc.RequestId, entry: Pending): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.#pending.get(id) !== entry) return Effect.void
      this.#pending.delete(id)
      return this.#cancel(id, "The request was cancelled", entry.related)
    })
  }
}

/**
 * Waits for a pending request's outcome. One that is there already (a peer that answered within the send) is
 * taken without `Effect.async`, whose resumption, even a synchronous one, goes through the scheduler. The wait
 * has no canceller: `Effect.async` wraps one in an interruption handler (an uninterruptible region and an exit
 * continuation per call, about a fifth of a stdio client's CPU per call), so an interrupted wait is abandoned by
 * the observer of the caller's fiber instead, when that fiber ends.
 */
const outcomeOf = (entry: Pending) =>
  Effect.suspend(() =>
    entry.outcome ?? Effect.async<Record<string, unknown>, RequestFailure>((resume) => {
      if (entry.outcome !== undefined) return resume(entry.outcome)
      entry.resume = resume
    })
  )

/** Starts an engine over the current Transport; it runs until the transport ends or the scope closes. */
export const make = <E>(
  handlers: Handlers<E>,
  options: EngineOptions = {}
): Effect.Effect<Engine, never, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* Transport.Transport
    const scope = yield* Effect.scope
    // Frames are handled in the transport's call: requests and side work start as fibers at once.
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const semaphore = options.concurrency === undefined ? undefined : yield* Effect.makeSemaphore(options.concurrency)
    const engine = new Connection(handlers, transport, scope, runFork, yield* Effect.clock, semaphore, options)

    if (transport.listen !== undefined) {
      // Frames pushed in: no receiving fiber. Listening starts after the engine is made, as a receiving fiber would
      // (a frame the transport kept meanwhile is handed over then), and the end shuts the engine down from a fiber of
      // its own. One finalizer stops listening and shuts the engine down.
      const listen = transport.listen
      let stop: (() => void) | undefined
      yield* Scoped.onClose(Effect.suspend(() => {
        stop?.()
        return engine.shutdown("the connection's scope closed")
      }))
      yield* Effect.forkScoped(Effect.sync(() => {
        if (!engine.isClosed()) stop = listen(engine.deliver, (failure) => void runFork(engine.ended(failure)))
      }))
    } else {
      yield* Scoped.onClose(engine.shutdown("the connection's scope closed"))
      yield* transport.receive(engine.deliver).pipe(
        Effect.matchCauseEffect({
          onSuccess: () => engine.ended(),
          onFailure: (cause) =>
            Cause.isInterruptedOnly(cause)
              ? engine.shutdown("the connection was interrupted")
              : Option.match(Cause.failureOption(cause), {
                onNone: () =>
                  Effect.zipRight(
                    Effect.logDebug("effect-mcp: transport failed", cause),
                    engine.shutdown(`the transport failed: ${Cause.pretty(cause)}`)
                  ),
                onSome: (failure) => engine.ended(failure)
              })
        }),
        Effect.forkScoped
      )
    }
    return engine
  })
