/**
 * The engine's spans and operation durations (OpenTelemetry GenAI conventions for MCP), for a connection that traces
 * (`state.traced`, decided once when it starts: see `McpTelemetry`). What a connection sends gets a CLIENT span, with
 * its context written into `params._meta`, and counts in `mcp.client.operation.duration`; what it receives gets a
 * SERVER span, parented to the context its `_meta` carries, and counts in `mcp.server.operation.duration`. A
 * connection that does not trace never reaches this module.
 */
import type { JsonRpc } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import type * as Tracer from "effect/Tracer"
import * as McpTelemetry from "../../McpTelemetry.js"
import type * as Transport from "../../Transport.js"
import type { ConnectionState } from "./state.js"
import * as Attributes from "./telemetryAttributes.js"
import * as TraceContext from "./traceContext.js"

const names = McpTelemetry.attributes

/** How an operation failed, as its span's status and its `error.type` say. */
class OperationFailed extends Data.TaggedError("OperationFailed")<{ readonly message: string }> {}

/** A request or notification on its way: its span, its attributes and when it started. */
interface Operation {
  readonly span: Tracer.Span
  readonly attributes: Record<string, string | number>
  readonly startNanos: bigint
  outcome: Attributes.Outcome | undefined
}

/**
 * Runs `answer` (the answering of an incoming request) inside a SERVER span; `answer` reports the response it sends
 * through `observe`, whose error or `isError` result becomes the span's `error.type`.
 */
export const incomingRequest = <E>(
  state: ConnectionState<E>,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  answer: (observe: (response: JsonRpc.Message) => void) => Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const attributes = Attributes.attributesOf(state, request.method, request.params, frame.revision)
    // The id the peer gave it (a transport that renumbers requests keeps it on the frame).
    attributes[names.requestId] = String(frame.requestId ?? request.id)
    return Effect.flatMap(start(state, request.method, request.params, "server", attributes), (operation) =>
      answer((response) => {
        operation.outcome = Attributes.outcomeOfResponse(request.method, response)
      }).pipe(
        Effect.withParentSpan(operation.span),
        Effect.onExit((exit) =>
          end(state, operation, exit, McpTelemetry.serverOperationDuration)
        )
      ))
  })

/** Runs `handle` (the handling of an incoming notification) inside a SERVER span. */
export const incomingNotification = <E>(
  state: ConnectionState<E>,
  notification: JsonRpc.Notification,
  frame: Transport.Frame,
  handle: Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const attributes = Attributes.attributesOf(state, notification.method, notification.params, frame.revision)
    return Effect.flatMap(
      start(state, notification.method, notification.params, "server", attributes),
      (operation) =>
        handle.pipe(
          Effect.withParentSpan(operation.span),
          Effect.onExit((exit) => end(state, operation, exit, McpTelemetry.serverOperationDuration))
        )
    )
  })

/**
 * Sends a request of ours (`send`, given the params with the trace context in their `_meta`, and a callback for the
 * id it goes out under) inside a CLIENT span that ends with its response.
 */
export const outgoingRequest = <E, A extends Record<string, unknown>, E2>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  send: (params: Record<string, unknown>, onId: (id: JsonRpc.RequestId) => void) => Effect.Effect<A, E2>
): Effect.Effect<A, E2> =>
  Effect.suspend(() => {
    const attributes = Attributes.attributesOf(state, method, params, undefined)
    return Effect.flatMap(start(state, method, params, "client", attributes), (operation) =>
      send(TraceContext.inject(params, operation.span), (id) =>
        operation.span.attribute(names.requestId, String(id)))
        .pipe(
          Effect.tap((result) => {
            operation.outcome = Attributes.outcomeOfResult(method, result)
          }),
          Effect.onExit((exit) => end(state, operation, exit, McpTelemetry.clientOperationDuration))
        ))
  })

/** Sends a notification of ours (`send`, given the params with the trace context) inside a CLIENT span. */
export const outgoingNotification = <E, E2>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  send: (params: Record<string, unknown>) => Effect.Effect<void, E2>
): Effect.Effect<void, E2> =>
  Effect.suspend(() => {
    const attributes = Attributes.attributesOf(state, method, params, undefined)
    return Effect.flatMap(start(state, method, params, "client", attributes), (operation) =>
      send(TraceContext.inject(params, operation.span)).pipe(
        Effect.onExit((exit) =>
          end(state, operation, exit, McpTelemetry.clientOperationDuration)
        )
      ))
  })

// ---------- spans ----------

/** Starts an operation's span: a SERVER span is parented to the context the message carries, when it carries one. */
const start = <E>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  kind: "client" | "server",
  attributes: Record<string, string | number>
): Effect.Effect<Operation> => {
  const parent = kind === "server" ? TraceContext.parentFrom(params) : undefined
  return Effect.map(
    Effect.makeSpan(spanName(method, attributes), {
      kind,
      attributes,
      ...(parent === undefined ? {} : { parent })
    }),
    (span) => ({ span, attributes, startNanos: state.clock.unsafeCurrentTimeNanos(), outcome: undefined })
  )
}

/** Ends an operation: its span with the outcome as status, and its duration in the histogram. */
const end = <E>(
  state: ConnectionState<E>,
  operation: Operation,
  exit: Exit.Exit<unknown, unknown>,
  histogram: typeof McpTelemetry.clientOperationDuration
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const endNanos = state.clock.unsafeCurrentTimeNanos()
    const outcome = Exit.isSuccess(exit) ? operation.outcome : Attributes.outcomeOfFailure(exit.cause)
    const span = operation.span
    const labels = Attributes.metricLabels(operation.attributes, outcome)
    if (outcome?.errorType !== undefined) span.attribute(names.errorType, outcome.errorType)
    if (outcome?.statusCode !== undefined) span.attribute(names.statusCode, outcome.statusCode)
    span.end(
      endNanos,
      outcome?.errorType === undefined || Exit.isFailure(exit)
        ? exit
        : Exit.fail(new OperationFailed({ message: outcome.message ?? outcome.errorType }))
    )
    return Metric.update(
      Metric.taggedWithLabels(histogram, labels),
      Number(endNanos - operation.startNanos) / 1e9
    )
  })

/** `{mcp.method.name} {target}`, the target being the tool's or the prompt's name (never a resource's URI). */
const spanName = (method: string, attributes: Record<string, string | number>): string => {
  const target = attributes[names.toolName] ?? attributes[names.promptName]
  return target === undefined ? method : `${method} ${target}`
}
