/**
 * One connection's engine: the `Engine` a session is given, over the connection's state. Its state is its fields and
 * its operations live on the prototype (only `deliver`, handed to the transport, is bound); what each operation does
 * is in the module of its concept: `outgoing` (our requests), `receive` and `incoming` (what the peer sends),
 * `timeouts`, and the end of the connection here.
 */
import { JsonRpc } from "@effect-mcp/schema"
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import type * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { ConnectionClosed } from "../../Errors.js"
import type * as Transport from "../../Transport.js"
import * as FastPath from "./fastPath.js"
import * as Outgoing from "./outgoing.js"
import { complete, type Pending } from "./pending.js"
import * as Receive from "./receive.js"
import type { ConnectionState } from "./state.js"
import * as Telemetry from "./telemetry.js"
import * as Timeouts from "./timeouts.js"
import {
  defaultMaxBatchSize,
  defaultMaxDepth,
  type Engine,
  type EngineOptions,
  type Handlers,
  type RequestFailure,
  type RequestOptions
} from "./types.js"

/** A running engine over one connection, and the state its modules share. */
export class Connection<E> implements Engine, ConnectionState<E> {
  // Made for our first request: a server's connection that never asks its client anything holds none.
  pending: Map<JsonRpc.RequestId, Pending> | undefined = undefined
  // The fibers still running are kept in a FiberMap (requests, by id) and a FiberSet (side work), each made on first
  // use (see `fastPath`): a connection whose requests and side work all finish at once holds neither.
  inflight: FiberMap.FiberMap<JsonRpc.RequestId> | undefined = undefined
  sideWork: FiberSet.FiberSet | undefined = undefined
  sweeper: Fiber.RuntimeFiber<void> | undefined = undefined
  sweepAt = Number.POSITIVE_INFINITY
  closedSignal: Deferred.Deferred<void> | undefined = undefined
  hasClosed = false
  stopListening: (() => void) | undefined = undefined
  nextId = 0
  readonly defaultTimeout: number
  readonly resolution: number
  readonly maxDepth: number
  readonly maxBatchSize: number

  constructor(
    readonly handlers: Handlers<E>,
    readonly transport: Transport.TransportService,
    readonly scope: Scope.Scope,
    readonly runtime: Runtime.Runtime<never>,
    readonly clock: Clock.Clock,
    readonly semaphore: Effect.Semaphore | undefined,
    readonly traced: boolean,
    options: EngineOptions
  ) {
    this.defaultTimeout = Duration.toMillis(options.defaultTimeout ?? Duration.seconds(60))
    this.resolution = Duration.toMillis(options.timeoutResolution ?? Duration.millis(10))
    this.maxDepth = options.maxDepth ?? defaultMaxDepth
    this.maxBatchSize = options.maxBatchSize ?? defaultMaxBatchSize
  }

  // ---------- the Engine ----------

  get closed(): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.hasClosed) return Effect.void
      if (this.closedSignal !== undefined) return Deferred.await(this.closedSignal)
      // Made for the first caller before the end; the end may come while it is made.
      return Effect.flatMap(
        Deferred.make<void>(),
        (made) => this.hasClosed ? Effect.void : Deferred.await(this.closedSignal ??= made)
      )
    })
  }

  isClosed(): boolean {
    return this.hasClosed
  }

  inFlight(): number {
    return FastPath.inFlightCount(this)
  }

  pendingCount(): number {
    return this.pending?.size ?? 0
  }

  background(effect: Effect.Effect<void>): void {
    FastPath.runInBackground(this, effect)
  }

  notify(
    method: string,
    params: Record<string, unknown> | undefined,
    sendOptions?: Transport.SendOptions
  ): Effect.Effect<void, Transport.TransportError> {
    return this.traced
      ? Telemetry.outgoingNotification(
        this,
        method,
        params,
        (traced) => this.transport.send(JsonRpc.notification(method, traced), sendOptions)
      )
      : this.transport.send(JsonRpc.notification(method, params), sendOptions)
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: RequestOptions = {}
  ): Effect.Effect<Record<string, unknown>, RequestFailure> {
    return Outgoing.request(this, method, params, requestOptions)
  }

  /** Hands one frame from the transport to the engine (bound: the transport calls it). */
  readonly deliver: Transport.Deliver = (incoming) => Receive.deliver(this, incoming)

  /** Starts a fiber at once, in the connection's runtime, in the caller's call (it runs until it must wait). */
  runFork<A, E2>(effect: Effect.Effect<A, E2>): Fiber.RuntimeFiber<A, E2> {
    return Runtime.runFork(this.runtime, effect)
  }

  // ---------- receiving from a transport that pushes frames ----------

  /** Starts receiving through the transport's `listen`, unless the connection has ended already. */
  listen(): void {
    const listen = this.transport.listen
    if (listen !== undefined && !this.hasClosed) this.stopListening = listen(this.deliver, this.transportEnded)
  }

  /** What the transport calls at its end (bound): the end is handled in a fiber of its own. */
  readonly transportEnded = (failure?: Transport.TransportError): void => {
    this.runFork(this.ended(failure))
  }

  /** The connection's scope finalizer (bound): stops listening and shuts the engine down. */
  readonly closeWithScope = (): Effect.Effect<void> => {
    this.stopListening?.()
    this.stopListening = undefined
    return this.shutdown("the connection's scope closed")
  }

  // ---------- the end ----------

  /** Ends the connection: fails our waiting requests, stops the sweeper, interrupts the running requests. */
  shutdown(
    reason: string,
    exit: { readonly exitCode?: number; readonly stderrTail?: string } = {}
  ): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.hasClosed) return Effect.void
      this.hasClosed = true
      const waiting = this.pending === undefined ? [] : [...this.pending.values()]
      this.pending?.clear()
      for (const p of waiting) complete(p, Effect.fail(new ConnectionClosed({ reason, ...exit })))
      Timeouts.stopSweeper(this)
      const signal = this.closedSignal
      return Effect.zipRight(
        this.inflight === undefined ? Effect.void : FiberMap.clear(this.inflight),
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
}
