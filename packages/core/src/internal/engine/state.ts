/**
 * One connection's state, shared by the engine's modules: each module is functions over this record, and the
 * `Connection` object is the record itself, so that a connection allocates a few objects rather than a closure per
 * operation (docs/benchmarks.md, "Objects, not closures": two engines on a pair 13.2 → 6.5 KB).
 */
import type { JsonRpc } from "@effect-mcp/schema"
import type * as Clock from "effect/Clock"
import type * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as FiberMap from "effect/FiberMap"
import type * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import type * as Transport from "../../Transport.js"
import type { Pending } from "./pending.js"
import type { Handlers } from "./types.js"

/** What every module of the engine reads and updates of one connection. */
export interface ConnectionState<E> {
  /** How the session answers what the peer sends. */
  readonly handlers: Handlers<E>
  /** The transport the connection runs over. */
  readonly transport: Transport.TransportService
  /** The connection's scope: its fibers are interrupted when it closes. */
  readonly scope: Scope.Scope
  /** Starts a fiber at once, in the connection's runtime, in the caller's call (it runs until it must wait). */
  runFork<A, E2>(effect: Effect.Effect<A, E2>): Fiber.RuntimeFiber<A, E2>
  /** The clock of the connection's runtime. */
  readonly clock: Clock.Clock
  /** Bounds the incoming requests running at once, when the engine has a concurrency. */
  readonly semaphore: Effect.Semaphore | undefined
  /** Our requests awaiting a response, by id (made for the first). */
  pending: Map<JsonRpc.RequestId, Pending> | undefined
  /** The incoming requests still running after their start, by id (made on first use, see `fastPath`). */
  inflight: FiberMap.FiberMap<JsonRpc.RequestId> | undefined
  /** The side work still running after its start (made on first use, see `fastPath`). */
  sideWork: FiberSet.FiberSet | undefined
  /** The fiber that fails expired requests, while any request waits (see `timeouts`). */
  sweeper: Fiber.RuntimeFiber<void> | undefined
  /** When the sweeper runs next (clock milliseconds; infinite when it does not run). */
  sweepAt: number
  /** Completed at the connection's end; made for the first caller of `closed` before the end. */
  closedSignal: Deferred.Deferred<void> | undefined
  /** Whether the connection has ended. */
  hasClosed: boolean
  /** The id of our next request (ids are numbered from 0). */
  nextId: number
  /** The default timeout of our requests, in milliseconds. */
  readonly defaultTimeout: number
  /** How late past its deadline a timeout may fire, in milliseconds. */
  readonly resolution: number
  /** Whether the connection records spans and operation durations (decided once, when it starts). */
  readonly traced: boolean
  /** Frames nested deeper than this are refused. */
  readonly maxDepth: number
  /** A batch of more messages than this is refused whole. */
  readonly maxBatchSize: number
}
