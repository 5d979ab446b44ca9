/**
 * The engine's spans and operation durations (OpenTelemetry GenAI conventions for MCP), for a connection that traces
 * (`state.traced`, decided once when it starts: see `McpTelemetry`). What a connection sends gets a CLIENT span, with
 * its context written into `params._meta`, and counts in `mcp.client.operation.duration`; what it receives gets a
 * SERVER span, parented to the context its `_meta` carries, and counts in `mcp.server.operation.duration`. A
 * connection that does not trace never reaches this module.
 */
import { Json, JsonRpc, McpError, Method } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type * as Tracer from "effect/Tracer"
import * as McpTelemetry from "../../McpTelemetry.js"
import type * as Transport from "../../Transport.js"
import type { ConnectionState } from "./state.js"
import * as TraceContext from "./traceContext.js"

const names = McpTelemetry.attributes

/** How an operation failed, as its span's status and its `error.type` say. */
class OperationFailed extends Data.TaggedError("OperationFailed")<{ readonly message: string }> {}

/** What an operation ended with, for its span and its histogram. */
interface Outcome {
  readonly errorType?: string
  readonly statusCode?: string
  readonly message?: string
}

/** A request or notification on its way: its span, its attributes and when it started. */
interface Operation {
  readonly span: Tracer.Span
  readonly attributes: Record<string, string | number>
  readonly startNanos: bigint
  outcome: Outcome | undefined
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
    const attributes = attributesOf(state, request.method, request.params, frame.revision)
    // The id the peer gave it (a transport that renumbers requests keeps it on the frame).
    attributes[names.requestId] = String(frame.requestId ?? request.id)
    return Effect.flatMap(start(state, request.method, request.params, "server", attributes), (operation) =>
      answer((response) => {
        operation.outcome = outcomeOfResponse(request.method, response)
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
    const attributes = attributesOf(state, notification.method, notification.params, frame.revision)
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
    const attributes = attributesOf(state, method, params, undefined)
    return Effect.flatMap(start(state, method, params, "client", attributes), (operation) =>
      send(TraceContext.inject(params, operation.span), (id) => {
        attributes[names.requestId] = String(id)
        operation.span.attribute(names.requestId, String(id))
      }).pipe(
        Effect.tap((result) => {
          operation.outcome = outcomeOfResult(method, result)
        }),
        Effect.onExit((exit) =>
          end(state, operation, exit, McpTelemetry.clientOperationDuration)
        )
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
    const attributes = attributesOf(state, method, params, undefined)
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
    const outcome = Exit.isSuccess(exit) ? operation.outcome : outcomeOfFailure(exit.cause)
    const span = operation.span
    const labels = metricLabels(operation.attributes, outcome)
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

// ---------- attributes ----------

/** The attributes of a message: its method and target, and what is known of the connection. */
const attributesOf = <E>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  frameRevision: string | undefined
): Record<string, string | number> => {
  const attributes: Record<string, string | number> = { [names.methodName]: method }
  const name = typeof params?.name === "string" ? clip(params.name) : undefined
  if (method === "tools/call" && name !== undefined) {
    attributes[names.toolName] = name
    attributes[names.operationName] = "execute_tool"
  } else if (method === "prompts/get" && name !== undefined) attributes[names.promptName] = name
  else if (
    typeof params?.uri === "string" &&
    (method.startsWith("resources/") || method.startsWith("notifications/resources/"))
  ) {
    attributes[names.resourceUri] = clip(params.uri)
  }
  const revision = revisionOf(params) ?? frameRevision ?? state.handlers.revision
  if (revision !== undefined) attributes[names.protocolVersion] = revision
  const description = state.transport.describe?.()
  if (description?.networkTransport !== undefined) attributes[names.networkTransport] = description.networkTransport
  if (description?.sessionId !== undefined) attributes[names.sessionId] = description.sessionId
  if (description?.serverAddress !== undefined) attributes[names.serverAddress] = description.serverAddress
  if (description?.serverPort !== undefined) attributes[names.serverPort] = description.serverPort
  return attributes
}

/** A name or URI as an attribute: at most 256 characters (a peer's may be any length). */
const clip = (value: string): string => value.length > 256 ? value.slice(0, 256) : value

/** The revision a 2026-07-28 message names in its `_meta`. */
const revisionOf = (params: Record<string, unknown> | undefined): string | undefined => {
  const meta = params?._meta
  const revision = Json.isRecord(meta) ? meta["io.modelcontextprotocol/protocolVersion"] : undefined
  return typeof revision === "string" ? clip(revision) : undefined
}

// The attributes that label the histograms: none that names a session, a request or a resource.
const metricAttributes: ReadonlyArray<string> = [
  names.methodName,
  names.toolName,
  names.promptName,
  names.operationName,
  names.protocolVersion,
  names.networkTransport,
  names.serverAddress,
  names.serverPort
]

// What the peer named, and what an error response refused: kept on the span, but not as a label.
const peerChosen: ReadonlySet<string> = new Set([
  names.toolName,
  names.promptName,
  names.operationName,
  names.protocolVersion
])

// The error codes the protocol defines; any other code counts as `_OTHER`.
const knownCodes: ReadonlySet<string> = new Set(Object.values(McpError.codes).map(String))

/**
 * The labels of an operation's duration. Each distinct set of labels is a series Effect keeps for the life of the
 * process, so a peer must not be able to make new ones at will: an operation answered with a JSON-RPC error (an
 * unknown tool, prompt or revision) keeps no name the peer chose, a method that no revision defines counts as
 * `_OTHER`, and so does an error code the protocol does not define.
 */
const metricLabels = (
  attributes: Record<string, string | number>,
  outcome: Outcome | undefined
): Array<MetricLabel.MetricLabel> => {
  const refused = outcome?.statusCode !== undefined
  const labels: Array<MetricLabel.MetricLabel> = []
  for (const key of metricAttributes) {
    const value = attributes[key]
    if (value === undefined || (refused && peerChosen.has(key))) continue
    const unknownMethod = key === names.methodName && Method.info(String(value)) === undefined
    labels.push(MetricLabel.make(key, unknownMethod ? "_OTHER" : String(value)))
  }
  if (outcome?.errorType !== undefined) labels.push(MetricLabel.make(names.errorType, bounded(outcome.errorType)))
  if (outcome?.statusCode !== undefined) labels.push(MetricLabel.make(names.statusCode, bounded(outcome.statusCode)))
  return labels
}

/** An error code, or `_OTHER` for one the protocol does not define (`tool_error`, `cancelled` and tags pass). */
const bounded = (code: string): string => /^-?\d+$/.test(code) && !knownCodes.has(code) ? "_OTHER" : code

// ---------- outcomes ----------

/** What the response we send says: a JSON-RPC error's code, or a tool's `isError` result. */
const outcomeOfResponse = (method: string, response: JsonRpc.Message): Outcome | undefined => {
  if ("error" in response) {
    const code = String(response.error.code)
    return { errorType: code, statusCode: code, message: response.error.message }
  }
  return "result" in response && Json.isRecord(response.result) ? outcomeOfResult(method, response.result) : undefined
}

/** A `tools/call` result with `isError: true` is a `tool_error`. */
const outcomeOfResult = (method: string, result: Record<string, unknown>): Outcome | undefined =>
  method === "tools/call" && result.isError === true ? { errorType: "tool_error" } : undefined

/** What a failed request of ours failed with: the peer's error code, or the kind of local failure. */
const outcomeOfFailure = (cause: Cause.Cause<unknown>): Outcome | undefined => {
  if (Cause.isInterruptedOnly(cause)) return { errorType: "cancelled" }
  const failure = Cause.failureOption(cause)
  if (failure._tag === "None") return { errorType: "_OTHER" }
  const error = failure.value
  if (McpError.isMcpError(error)) {
    const code = String(error.code)
    return { errorType: code, statusCode: code, message: error.message }
  }
  const tag = typeof error === "object" && error !== null && "_tag" in error ? error._tag : undefined
  return { errorType: typeof tag === "string" ? tag : "_OTHER" }
}
