/**
 * Telemetry of MCP traffic, following the OpenTelemetry GenAI semantic conventions for MCP: a span per request and
 * notification on both sides (CLIENT for what a connection sends, SERVER for what it receives), W3C trace context
 * carried in `params._meta` (`traceparent`, `tracestate`), and the `mcp.client.operation.duration` /
 * `mcp.server.operation.duration` histograms. Spans go through Effect's `Tracer` and the histograms are Effect
 * `Metric`s, so `@effect/opentelemetry` exports both (docs/observability.md).
 *
 * Telemetry costs nothing unless it is on. By default (`"auto"`) a connection traces when the tracer it starts under
 * is not Effect's built-in one, that is when the user installed one (`@effect/opentelemetry`, say); the choice is made
 * once per connection. `layer` turns it on whatever the tracer (e.g. to record the histograms only) and `disabled`
 * turns it off.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"

/** When connections trace: `"auto"` (when a tracer other than Effect's built-in one is installed), `"on"`, `"off"`. */
export type Mode = "auto" | "on" | "off"

/**
 * The telemetry mode connections read when they start (default `"auto"`). A FiberRef, as the tracer is: a layer that
 * sets it applies to what is built after it, and to the program it is provided to.
 */
export const currentMode: FiberRef.FiberRef<Mode> = FiberRef.unsafeMake<Mode>("auto")

/** Turns telemetry on for the connections started under it, whatever the tracer. */
export const layer: Layer.Layer<never> = Layer.locallyScoped(currentMode, "on")

/** Turns telemetry off for the connections started under it, whatever the tracer. */
export const disabled: Layer.Layer<never> = Layer.locallyScoped(currentMode, "off")

/** The bucket boundaries (seconds) the conventions recommend for the operation durations. */
export const durationBoundaries: MetricBoundaries.MetricBoundaries = MetricBoundaries.fromIterable([
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300
])

/** The duration (seconds) of a request or notification this side sent, until its response or its send. */
export const clientOperationDuration = Metric.histogram(
  "mcp.client.operation.duration",
  durationBoundaries,
  "The duration of an MCP request or notification as observed by its sender, in seconds"
)

/** The duration (seconds) of a request or notification this side received, until its answer or its handling. */
export const serverOperationDuration = Metric.histogram(
  "mcp.server.operation.duration",
  durationBoundaries,
  "The duration of an MCP request or notification as observed by its receiver, in seconds"
)

/** The attribute names the spans and histograms carry (OpenTelemetry semantic conventions). */
export const attributes = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  requestId: "jsonrpc.request.id",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  resourceUri: "mcp.resource.uri",
  networkTransport: "network.transport",
  serverAddress: "server.address",
  serverPort: "server.port",
  errorType: "error.type",
  statusCode: "rpc.response.status_code"
} as const

/** Whether connections started in the current context trace: the mode, and in `"auto"` the installed tracer. */
export const isOn: Effect.Effect<boolean> = Effect.map(
  Effect.zip(FiberRef.get(currentMode), Effect.tracer),
  ([mode, tracer]) => mode === "on" || (mode === "auto" && tracer !== builtInTracer)
)

// Effect's own tracer, as every runtime has it until one is installed.
const builtInTracer = Effect.runSync(Effect.tracer)
