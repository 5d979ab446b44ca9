/**
 * The protocol engine both sides share: receives each frame from a Transport as it arrives, runs each
 * incoming request in its own fiber (a FiberMap keyed by request id, started at once), interrupts it on
 * `notifications/cancelled`, and correlates our own outgoing requests with their responses, with
 * progress, timeouts and cancellation on the wire. It knows nothing of MCP methods beyond cancellation and
 * progress: the session above it (server or client) decides what each request means.
 *
 * This module starts an engine over a connection; `engine/` holds it by concept: `types` (its vocabulary),
 * `connection` (the `Engine` over one connection's `state`), `outgoing` and `pending` (our requests), `receive`,
 * `refusals`, `batch` and `incoming` (what the peer sends), `send` (what the engine sends of its own accord),
 * `timeouts` (the sweeper), and `fastPath` (the measured fast paths, each with the benchmark row it wins).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as McpTelemetry from "../McpTelemetry.js"
import * as Transport from "../Transport.js"
import { Connection } from "./engine/connection.js"
import type { Engine, EngineOptions, Handlers } from "./engine/types.js"
import * as Scoped from "./scoped.js"

export {
  defaultMaxBatchSize,
  defaultMaxDepth,
  type Engine,
  type EngineOptions,
  type Handlers,
  type Progress,
  type RequestFailure,
  type RequestOptions
} from "./engine/types.js"

/** Starts an engine over the current Transport; it runs until the transport ends or the scope closes. */
export const make = <E>(
  handlers: Handlers<E>,
  options: EngineOptions = {}
): Effect.Effect<Engine, never, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* Transport.Transport
    const scope = yield* Effect.scope
    // Frames are handled in the transport's call: requests and side work start as fibers at once, in this runtime.
    const runtime = yield* Effect.runtime<never>()
    const semaphore = options.concurrency === undefined ? undefined : yield* Effect.makeSemaphore(options.concurrency)
    // Whether the connection traces is decided once: a connection that does not pays nothing per message.
    const traced = yield* McpTelemetry.isOn
    const engine = new Connection(handlers, transport, scope, runtime, yield* Effect.clock, semaphore, traced, options)
    // One finalizer, the engine's own: it stops listening (when it listens) and shuts the engine down.
    yield* Scoped.whenClosed(scope, engine.closeWithScope)

    if (transport.listen !== undefined) {
      // Frames pushed in: no receiving fiber. Listening starts after the engine is made, as a receiving fiber would
      // (a frame the transport kept meanwhile is handed over then), and the end shuts the engine down from a fiber of
      // its own.
      yield* Effect.forkScoped(Effect.sync(() => engine.listen()))
    } else {
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
