/**
 * Telemetry exported through `@effect/opentelemetry` to the OpenTelemetry SDK: one CLIENT span and one SERVER span
 * per call, the server's parented to the client's across a real stdio child (which traces with an SDK of its own and
 * writes its spans to a file) and across real HTTP on 127.0.0.1, with the conventions' attributes; and the operation
 * duration histograms, read through an OpenTelemetry metric reader.
 */
import { McpClient, McpServer, McpTelemetry, McpTest, RequestContext, Tool } from "@effect-mcp/core"
import { McpHost } from "@effect-mcp/host"
import { McpNodeHttpClient, McpNodeHttpServer } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import { NodeSdk } from "@effect/opentelemetry"
import { describe, expect, it } from "@effect/vitest"
import type { Attributes } from "@opentelemetry/api"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import type { HistogramMetricData, SumMetricData } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const tracedServer = fileURLToPath(new URL("./fixtures/tracedServer.mjs", import.meta.url))

/** A span as both sides report it: the in-memory exporter's here, the child's JSON lines there. */
interface SpanRecord {
  readonly name: string
  readonly kind: number
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly attributes: Attributes
  readonly status: { readonly code: number; readonly message?: string }
}

const SpanKind = { server: 1, client: 2 } as const
const StatusCode = { ok: 1, error: 2 } as const

/** A metric reader the test collects from by hand. */
class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

/** The OpenTelemetry SDK through `@effect/opentelemetry`: spans to an in-memory exporter, metrics to a reader. */
const makeTelemetry = () => {
  const exporter = new InMemorySpanExporter()
  const reader = new TestReader()
  const layer = NodeSdk.layer(() => ({
    resource: { serviceName: "telemetry-test" },
    spanProcessor: new SimpleSpanProcessor(exporter),
    metricReader: reader
  }))
  const spans = (): ReadonlyArray<SpanRecord> =>
    exporter.getFinishedSpans().map((span) => ({
      name: span.name,
      kind: span.kind,
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId,
      attributes: span.attributes,
      status: span.status
    }))
  /** The histogram points of `name` whose attributes include `labels`. */
  const histogram = (name: string, labels: Attributes) =>
    Effect.promise(() => reader.collect()).pipe(
      Effect.map(({ resourceMetrics }) =>
        resourceMetrics.scopeMetrics
          .flatMap((scope) => scope.metrics)
          .filter((metric): metric is HistogramMetricData => metric.descriptor.name === name)
          .flatMap((metric) => metric.dataPoints)
          .filter((point) => Object.entries(labels).every(([key, value]) => point.attributes[key] === value))
      )
    )
  /** The values of the counter `name` whose attributes include `labels`, by their `event` attribute. */
  const sums = (name: string, labels: Attributes) =>
    Effect.promise(() => reader.collect()).pipe(
      Effect.map(({ resourceMetrics }) =>
        Object.fromEntries(
          resourceMetrics.scopeMetrics
            .flatMap((scope) => scope.metrics)
            .filter((metric): metric is SumMetricData => metric.descriptor.name === name)
            .flatMap((metric) => metric.dataPoints)
            .filter((point) => Object.entries(labels).every(([key, value]) => point.attributes[key] === value))
            .map((point) => [String(point.attributes.event), point.value])
        )
      )
    )
  /** How many operations the histogram `name` counted under attributes that include `labels`. */
  const counted = (name: string, labels: Attributes) =>
    Effect.map(histogram(name, labels), (points) => points.reduce((total, point) => total + point.value.count, 0))
  return { layer, spans, histogram, counted, sums }
}

const Echo = McpServer.tool({
  name: "echo",
  description: "Returns its text, from a span of its own",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text).pipe(Effect.withSpan("echo work"))
})

const Refuse = McpServer.tool({
  name: "refuse",
  description: "Always fails with a tool error",
  input: Schema.Struct({}),
  handler: () => Effect.fail(new Tool.ToolError({ message: "refused" }))
})

const info = { name: "telemetry-test", version: "1.0.0" }

/** The only span of `spans` named `name` and of kind `kind` (fails the test when there is not exactly one). */
const only = (spans: ReadonlyArray<SpanRecord>, name: string, kind: number): SpanRecord => {
  const found = spans.filter((span) => span.name === name && span.kind === kind)
  expect(found, `${name} (${kind === SpanKind.client ? "client" : "server"})`).toHaveLength(1)
  return found[0]!
}

/** Checks that `server` is `client`'s child and that both carry what the conventions ask of a call of `tool`. */
const expectCallPair = (
  client: SpanRecord,
  server: SpanRecord,
  tool: string,
  common: Attributes
) => {
  expect(server.traceId).toBe(client.traceId)
  expect(server.parentSpanId).toBe(client.spanId)
  for (const span of [client, server]) {
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": tool,
      "gen_ai.operation.name": "execute_tool",
      ...common
    })
    expect(typeof span.attributes["jsonrpc.request.id"]).toBe("string")
  }
}

/** Runs `calls` with a client over the transport `transport` builds, under `telemetry`, and closes it. */
const withClient = <A, E>(
  transport: Layer.Layer<import("@effect-mcp/core").Transport.Transport, unknown>,
  revision: "2025-11-25" | "2026-07-28",
  calls: (client: McpClient.McpClientService) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const context = yield* Layer.build(
        McpClient.layer({ name: "telemetry-client", version: "1.0.0", revision })
          .pipe(Layer.provide(transport))
      )
      return yield* calls(Context.get(context, McpClient.McpClient))
    })
  )

const echoAndRefuse = (client: McpClient.McpClientService) =>
  Effect.gen(function*() {
    const echoed = yield* client.callTool("echo", { text: "hi" })
    const refused = yield* client.callTool("refuse", {})
    return { echoed, refused, revision: client.revision }
  })

describe("telemetry over stdio (a real child that traces with the OpenTelemetry SDK)", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it.live(`one client span and one server span per call, parented across the pipe (${revision})`, () => {
      const telemetry = makeTelemetry()
      const dir = mkdtempSync(join(tmpdir(), "effect-mcp-telemetry-"))
      const spanFile = join(dir, "spans.jsonl")
      return Effect.gen(function*() {
        const transport = StdioClientTransport.layer({
          command: process.execPath,
          args: [tracedServer],
          env: { SPAN_FILE: spanFile },
          stderr: "ignore"
        })
        const refusals = {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "refuse",
          "network.transport": "pipe",
          "mcp.protocol.version": revision,
          "error.type": "tool_error"
        }
        // Effect's metrics are the process's: what this test adds is the difference.
        const before = yield* telemetry.counted("mcp.client.operation.duration", refusals)
        // The client's scope ends the child: every span it ended is in the file by then.
        const { echoed, refused, revision: negotiated } = yield* withClient(transport, revision, echoAndRefuse)
        expect(negotiated).toBe(revision)
        expect(echoed.isError).not.toBe(true)
        expect(refused.isError).toBe(true)
        const ours = telemetry.spans()
        const theirs: ReadonlyArray<SpanRecord> = readFileSync(spanFile, "utf8").trim().split("\n").map((line) =>
          JSON.parse(line)
        )
        const common = { "network.transport": "pipe", "mcp.protocol.version": negotiated }

        const echoClient = only(ours, "tools/call echo", SpanKind.client)
        const echoServer = only(theirs, "tools/call echo", SpanKind.server)
        expectCallPair(echoClient, echoServer, "echo", common)
        expect(echoServer.attributes["jsonrpc.request.id"]).toBe(echoClient.attributes["jsonrpc.request.id"])
        expect(echoClient.status.code).toBe(StatusCode.ok)
        // What the handler traces is a child of the server's span.
        expect(only(theirs, "echo work", 0).parentSpanId).toBe(echoServer.spanId)

        const refuseClient = only(ours, "tools/call refuse", SpanKind.client)
        const refuseServer = only(theirs, "tools/call refuse", SpanKind.server)
        expectCallPair(refuseClient, refuseServer, "refuse", common)
        for (const span of [refuseClient, refuseServer]) {
          expect(span.attributes["error.type"]).toBe("tool_error")
          expect(span.status.code).toBe(StatusCode.error)
        }

        if (negotiated === "2025-11-25") {
          // The handshake is traced too: the request, and the notification that ends it.
          expectParented(only(ours, "initialize", SpanKind.client), only(theirs, "initialize", SpanKind.server))
          expectParented(
            only(ours, "notifications/initialized", SpanKind.client),
            only(theirs, "notifications/initialized", SpanKind.server)
          )
        } else {
          expect(negotiated).toBe("2026-07-28")
          expectParented(
            only(ours, "server/discover", SpanKind.client),
            only(theirs, "server/discover", SpanKind.server)
          )
        }

        // The client's duration histogram, exported through the OpenTelemetry metric reader: one more refusal.
        expect(yield* telemetry.histogram("mcp.client.operation.duration", refusals)).toHaveLength(1)
        expect(yield* telemetry.counted("mcp.client.operation.duration", refusals)).toBe(before + 1)
      }).pipe(
        Effect.provide(telemetry.layer),
        Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      )
    })
  }
})

/** `server`'s span is a child of `client`'s, in its trace. */
const expectParented = (client: SpanRecord, server: SpanRecord) => {
  expect(server.traceId).toBe(client.traceId)
  expect(server.parentSpanId).toBe(client.spanId)
}

describe("telemetry over Streamable HTTP (real loopback)", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it.live(`one client span and one server span per call, parented across HTTP (${revision})`, () => {
      const telemetry = makeTelemetry()
      return Effect.gen(function*() {
        const server = yield* Layer.build(
          McpNodeHttpServer.layer().pipe(
            Layer.provide(Layer.mergeAll(Echo, Refuse).pipe(Layer.provideMerge(McpServer.layer(info))))
          )
        )
        const { url } = Context.get(server, McpNodeHttpServer.Address)
        const echoes = {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "echo",
          "network.transport": "tcp",
          "mcp.protocol.version": revision
        }
        const names = ["mcp.client.operation.duration", "mcp.server.operation.duration"] as const
        // Effect's metrics are the process's: what this test adds is the difference.
        const before = yield* Effect.forEach(names, (name) => telemetry.counted(name, echoes))
        // Another client first, so that the stateless endpoint's own numbering runs ahead of the client's ids.
        yield* withClient(McpNodeHttpClient.layer({ url }), revision, () => Effect.void)
        const { echoed, refused, revision: negotiated } = yield* withClient(
          McpNodeHttpClient.layer({ url }),
          revision,
          echoAndRefuse
        )
        expect(negotiated).toBe(revision)
        expect(echoed.isError).not.toBe(true)
        expect(refused.isError).toBe(true)
        const spans = telemetry.spans()
        const port = Number(new URL(url).port)

        const echoClient = only(spans, "tools/call echo", SpanKind.client)
        const echoServer = only(spans, "tools/call echo", SpanKind.server)
        expectCallPair(echoClient, echoServer, "echo", {
          "network.transport": "tcp",
          "mcp.protocol.version": negotiated
        })
        expect(echoClient.attributes).toMatchObject({ "server.address": "127.0.0.1", "server.port": port })
        // The stateless endpoint renumbers requests: the server's span still names the client's id.
        expect(echoServer.attributes["jsonrpc.request.id"]).toBe(echoClient.attributes["jsonrpc.request.id"])
        expect(only(spans, "echo work", 0).parentSpanId).toBe(echoServer.spanId)
        if (negotiated === "2025-11-25") {
          // Both sides name the same session.
          expect(typeof echoClient.attributes["mcp.session.id"]).toBe("string")
          expect(echoServer.attributes["mcp.session.id"]).toBe(echoClient.attributes["mcp.session.id"])
        } else {
          expect(negotiated).toBe("2026-07-28")
          expect(echoServer.attributes["mcp.session.id"]).toBeUndefined()
        }

        const refuseClient = only(spans, "tools/call refuse", SpanKind.client)
        const refuseServer = only(spans, "tools/call refuse", SpanKind.server)
        expectParented(refuseClient, refuseServer)
        expect(refuseServer.attributes["error.type"]).toBe("tool_error")

        // Both histograms, one more echo call each, of this revision over TCP.
        const after = yield* Effect.forEach(names, (name) => telemetry.counted(name, echoes))
        expect(after).toEqual(before.map((count) => count + 1))
      }).pipe(Effect.scoped, Effect.provide(telemetry.layer))
    })
  }

  it.live("an error response sets error.type and rpc.response.status_code on both sides", () => {
    const telemetry = makeTelemetry()
    return Effect.gen(function*() {
      const server = yield* Layer.build(
        McpNodeHttpServer.layer().pipe(Layer.provide(Echo.pipe(Layer.provideMerge(McpServer.layer(info)))))
      )
      const { url } = Context.get(server, McpNodeHttpServer.Address)
      const failed = yield* withClient(
        McpNodeHttpClient.layer({ url }),
        "2025-11-25",
        (client) => Effect.flip(client.callTool("no-such-tool", {}))
      )
      const spans = telemetry.spans()
      const client = only(spans, "tools/call no-such-tool", SpanKind.client)
      const server_ = only(spans, "tools/call no-such-tool", SpanKind.server)
      expectParented(client, server_)
      const code = String((failed as { readonly code: number }).code)
      for (const span of [client, server_]) {
        expect(span.attributes).toMatchObject({ "error.type": code, "rpc.response.status_code": code })
        expect(span.status.code).toBe(StatusCode.error)
      }
      // A name the server refused is on the span, never a label of the histograms (each label set is kept for good).
      for (const name of ["mcp.client.operation.duration", "mcp.server.operation.duration"]) {
        expect(yield* telemetry.histogram(name, { "gen_ai.tool.name": "no-such-tool" }), name).toEqual([])
        const refusals = yield* telemetry.histogram(name, {
          "mcp.method.name": "tools/call",
          "error.type": code,
          "network.transport": "tcp"
        })
        expect(refusals.length, name).toBeGreaterThan(0)
      }
    }).pipe(Effect.scoped, Effect.provide(telemetry.layer))
  })
})

const MetaKeys = McpServer.tool({
  name: "meta-keys",
  description: "Returns the keys of the request's _meta",
  input: Schema.Struct({}),
  handler: () => Effect.map(RequestContext.RequestContext, (ctx) => Object.keys(ctx.meta).join(","))
})

/** The `_meta` keys a call arrives with, over HTTP on 127.0.0.1. */
const metaKeysOfACall = Effect.gen(function*() {
  const server = yield* Layer.build(
    McpNodeHttpServer.layer().pipe(Layer.provide(MetaKeys.pipe(Layer.provideMerge(McpServer.layer(info)))))
  )
  const { url } = Context.get(server, McpNodeHttpServer.Address)
  const result = yield* withClient(
    McpNodeHttpClient.layer({ url }),
    "2025-11-25",
    (client) => client.callTool("meta-keys", {})
  )
  const text = result.content[0]
  return text?.type === "text" ? text.text.split(",") : []
}).pipe(Effect.scoped)

describe("telemetry on and off", () => {
  it.live("no tracer installed: no trace context is written into _meta", () =>
    Effect.gen(function*() {
      expect(yield* McpTelemetry.isOn).toBe(false)
      expect(yield* metaKeysOfACall).not.toContain("traceparent")
    }))

  it.live("McpTelemetry.layer traces without a tracer of one's own (Effect's built-in one)", () =>
    Effect.gen(function*() {
      expect(yield* McpTelemetry.isOn).toBe(true)
      expect(yield* metaKeysOfACall).toContain("traceparent")
    }).pipe(Effect.provide(McpTelemetry.layer)))

  it.live("McpTelemetry.disabled turns it off under an installed tracer", () => {
    const telemetry = makeTelemetry()
    return Effect.gen(function*() {
      expect(yield* McpTelemetry.isOn).toBe(false)
      expect(yield* metaKeysOfACall).not.toContain("traceparent")
      expect(telemetry.spans().filter((span) => span.name.startsWith("tools/call"))).toHaveLength(0)
    }).pipe(Effect.provide(McpTelemetry.disabled), Effect.provide(telemetry.layer))
  })

  it.live("an installed tracer turns it on", () => {
    const telemetry = makeTelemetry()
    return Effect.gen(function*() {
      expect(yield* McpTelemetry.isOn).toBe(true)
      expect(yield* metaKeysOfACall).toContain("traceparent")
      expect(telemetry.spans().filter((span) => span.name === "tools/call meta-keys")).toHaveLength(2)
    }).pipe(Effect.provide(telemetry.layer))
  })
})

describe("telemetry of a host's supervision", () => {
  it.live("each connection attempt is a span (its handshake a child), and supervision events are counted", () => {
    const telemetry = makeTelemetry()
    return Effect.gen(function*() {
      const server = Echo.pipe(Layer.provideMerge(McpServer.layer(info)))
      const host = yield* McpHost.make({
        servers: { mem: { transport: McpTest.serverTransport(server) } },
        restart: Schedule.spaced("10 millis"),
        healthCheck: false
      })
      yield* host.restart("mem")
      // The second ServerUp is the restart's (the first is replayed to a late subscriber).
      yield* host.events.pipe(Stream.filter((event) => event._tag === "ServerUp"), Stream.take(2), Stream.runDrain)

      const connects = telemetry.spans().filter((span) => span.name === "mcp.host.connect")
      expect(connects).toHaveLength(2)
      expect(connects.map((span) => span.attributes)).toEqual([
        { "mcp.host.server": "mem", "mcp.host.attempt": 1 },
        { "mcp.host.server": "mem", "mcp.host.attempt": expect.any(Number) }
      ])
      const handshakes = telemetry.spans().filter((span) =>
        span.name === "server/discover" && span.kind === SpanKind.client
      )
      expect(handshakes).toHaveLength(2)
      expect(handshakes.map((span) => span.parentSpanId)).toEqual(connects.map((span) => span.spanId))

      const counts = yield* telemetry.sums("mcp.host.supervision.events", { "mcp.host.server": "mem" })
      expect(counts).toMatchObject({ ServerStarting: 2, ServerUp: 2, ServerDown: 1 })
    }).pipe(Effect.scoped, Effect.provide(telemetry.layer))
  })
})

describe("telemetry of the notifications the engine handles itself", () => {
  it.live("progress and cancellation are spans on both sides, parented across the connection", () => {
    const telemetry = makeTelemetry()
    const Slow = McpServer.tool({
      name: "slow",
      description: "Reports progress, then waits until cancelled",
      input: Schema.Struct({}),
      handler: () => Effect.zipRight(RequestContext.progress(1, 2, "half"), Effect.never)
    })
    return Effect.gen(function*() {
      const context = yield* Layer.build(
        McpTest.layer(Slow.pipe(Layer.provideMerge(McpServer.layer(info))), {
          name: "telemetry-client",
          version: "1.0.0",
          revision: "2025-11-25"
        })
      )
      const client = Context.get(context, McpClient.McpClient)
      const progressed = yield* Deferred.make<void>()
      const call = yield* Effect.fork(
        client.callTool("slow", {}, { onProgress: () => Deferred.unsafeDone(progressed, Effect.void) })
      )
      yield* Deferred.await(progressed)
      yield* Fiber.interrupt(call)
      // The cancellation goes out once the caller's fiber has ended; the server's span ends once it is handled.
      const serverSpans = Effect.sync(() => telemetry.spans()).pipe(
        Effect.filterOrFail(
          (spans) =>
            ["tools/call slow", "notifications/cancelled"].every((name) =>
              spans.some((span) => span.name === name && span.kind === SpanKind.server)
            ),
          () => "not yet"
        ),
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.intersect(Schedule.recurs(500))))
      )
      const spans = yield* serverSpans
      expectParented(
        only(spans, "notifications/progress", SpanKind.client),
        only(spans, "notifications/progress", SpanKind.server)
      )
      expectParented(
        only(spans, "notifications/cancelled", SpanKind.client),
        only(spans, "notifications/cancelled", SpanKind.server)
      )
      // The progress is sent from the handler: a child of the call's server span.
      const callServer = only(spans, "tools/call slow", SpanKind.server)
      expect(only(spans, "notifications/progress", SpanKind.client).parentSpanId).toBe(callServer.spanId)
      for (const span of [only(spans, "tools/call slow", SpanKind.client), callServer]) {
        expect(span.attributes["error.type"]).toBe("cancelled")
      }
    }).pipe(Effect.scoped, Effect.provide(telemetry.layer))
  })
})
