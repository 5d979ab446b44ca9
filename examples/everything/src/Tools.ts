/**
 * The everything server's tools: one per behaviour the conformance suite's tool scenarios check
 * (content of every kind, logging, progress, errors, JSON Schema 2020-12, SSE reconnection; the ones that ask
 * the client, sampling and elicitation, are in AskingTools.ts), plus `echo` and `divide` (structured output and a
 * typed failure).
 */
import { McpServer, RequestContext, Tool } from "@effect-mcp/core"
import type { Mcp } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Asking from "./AskingTools.js"
import * as Media from "./Media.js"

/** `echo`'s definition: returns its `text` argument as one text content. */
const echo = Tool.define({
  name: "echo",
  description: "Returns the given text unchanged",
  input: Schema.Struct({ text: Schema.String.annotations({ description: "The text to echo back" }) }),
  handler: ({ text }) => Effect.succeed(text)
})

/** `echo`: returns its `text` argument as one text content. */
export const Echo = McpServer.tool(echo)

/** `echo`, refused (403 `insufficient_scope` over HTTP) to a caller whose token does not grant every one of `scopes`. */
export const echoRequiring = (scopes: ReadonlyArray<string>) => McpServer.tool({ ...echo, scopes })

/** `divide`'s typed failure: the divisor was zero. */
export class DivisionByZero extends Schema.TaggedError<DivisionByZero>()("DivisionByZero", {
  dividend: Schema.Number,
  message: Schema.String
}) {}

/** `divide`: `a / b` as the structured output `{ quotient }`; dividing by zero fails with `DivisionByZero`. */
export const Divide = McpServer.tool({
  name: "divide",
  description: "Divides a by b; dividing by zero fails with a typed DivisionByZero error",
  input: Schema.Struct({
    a: Schema.Number.annotations({ description: "The dividend" }),
    b: Schema.Number.annotations({ description: "The divisor" })
  }),
  output: Schema.Struct({ quotient: Schema.Number }),
  failure: DivisionByZero,
  handler: ({ a, b }) =>
    b === 0
      ? Effect.fail(new DivisionByZero({ dividend: a, message: `cannot divide ${a} by zero` }))
      : Effect.succeed({ quotient: a / b })
})

/** `test_simple_text`: one text content. */
export const SimpleText = McpServer.tool({
  name: "test_simple_text",
  description: "Returns a simple text response",
  input: Tool.NoInput,
  handler: () => Effect.succeed("This is a simple text response for testing.")
})

/** `test_image_content`: one PNG image content. */
export const ImageContent = McpServer.tool({
  name: "test_image_content",
  description: "Returns a 1x1 red PNG image",
  input: Tool.NoInput,
  handler: () => Effect.succeed<Mcp.ContentBlock>({ type: "image", data: Media.redPixelPng, mimeType: "image/png" })
})

/** `test_audio_content`: one WAV audio content. */
export const AudioContent = McpServer.tool({
  name: "test_audio_content",
  description: "Returns a short silent WAV clip",
  input: Tool.NoInput,
  handler: () => Effect.succeed<Mcp.ContentBlock>({ type: "audio", data: Media.silenceWav, mimeType: "audio/wav" })
})

/** `test_embedded_resource`: one embedded text resource. */
export const EmbeddedResource = McpServer.tool({
  name: "test_embedded_resource",
  description: "Returns an embedded text resource",
  input: Tool.NoInput,
  handler: () =>
    Effect.succeed<Mcp.ContentBlock>({
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      }
    })
})

/** `test_multiple_content_types`: text, an image and an embedded JSON resource, in that order. */
export const MultipleContentTypes = McpServer.tool({
  name: "test_multiple_content_types",
  description: "Returns text, image and embedded resource content together",
  input: Tool.NoInput,
  handler: () =>
    Effect.succeed<ReadonlyArray<Mcp.ContentBlock>>([
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: Media.redPixelPng, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 })
        }
      }
    ])
})

/** `test_tool_with_logging`: three info log messages, 50 ms apart, during the call. */
export const WithLogging = McpServer.tool({
  name: "test_tool_with_logging",
  description: "Sends three log messages while it runs",
  input: Tool.NoInput,
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.log("info", "Tool execution started")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.log("info", "Tool processing data")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.log("info", "Tool execution completed")
      return "Tool with logging executed successfully"
    })
})

/** `test_tool_with_progress`: progress 0, 50 and 100 of 100, 50 ms apart (when the client sent a token). */
export const WithProgress = McpServer.tool({
  name: "test_tool_with_progress",
  description: "Reports progress 0/100, 50/100 and 100/100 while it runs",
  input: Tool.NoInput,
  handler: () =>
    Effect.gen(function*() {
      const { progressToken } = yield* RequestContext.RequestContext
      yield* RequestContext.progress(0, 100, "Completed step 0 of 100")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.progress(50, 100, "Completed step 50 of 100")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.progress(100, 100, "Completed step 100 of 100")
      return `Progress reported for token ${progressToken === undefined ? "(none)" : String(progressToken)}`
    })
})

/** The message of `test_error_handling`'s error result. */
export const errorMessage = "This tool intentionally returns an error for testing"

/** `test_error_handling`: always an `isError: true` result. */
export const ErrorHandling = McpServer.tool({
  name: "test_error_handling",
  description: "Always fails with a tool error",
  input: Tool.NoInput,
  handler: () => Effect.fail(new Tool.ToolError({ message: errorMessage }))
})

/** The input schema of `json_schema_2020_12_tool`: 2020-12 keywords that must survive listing. */
export const jsonSchema2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } }
    }
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" }
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false
} as const

const Contact = Schema.Struct({
  name: Schema.optional(Schema.String),
  address: Schema.optional(
    Schema.Struct({ street: Schema.optional(Schema.String), city: Schema.optional(Schema.String) })
  ),
  contactMethod: Schema.optional(Schema.Literal("phone", "email")),
  phone: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String)
})

/**
 * `json_schema_2020_12_tool`: lists with a hand-written 2020-12 input schema (an Effect Schema
 * cannot say `$anchor` or `if`/`then`/`else`), so it is registered with its descriptor replaced.
 */
export const JsonSchema2020_12 = Layer.scopedDiscard(
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const tool = Tool.make(
      Tool.define({
        name: "json_schema_2020_12_tool",
        description: "Tool with JSON Schema 2020-12 features",
        input: Contact,
        handler: (contact) => Effect.succeed(`Received: ${JSON.stringify(contact)}`)
      }),
      Context.empty()
    )
    const descriptor: Mcp.Tool = { ...tool.descriptor, inputSchema: jsonSchema2020_12 as Mcp.Tool["inputSchema"] }
    yield* Effect.acquireRelease(
      server.addTool({ ...tool, descriptor }),
      () => server.removeTool(descriptor.name)
    )
  })
)

/** How long `test_reconnection` keeps its stream open with nothing to say (longer than the HTTP SSE lifetime). */
export const reconnectionDelay = "450 millis"

/**
 * `test_reconnection`: logs once (so an HTTP answer becomes an SSE stream), then waits past the
 * server's SSE connection lifetime, so the connection is closed mid-call and the client must
 * reconnect with `Last-Event-ID` to get the result (SEP-1699).
 */
export const Reconnection = McpServer.tool({
  name: "test_reconnection",
  description: "Closes the SSE stream mid-call; the result arrives after the client reconnects (SEP-1699)",
  input: Tool.NoInput,
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.log("info", "test_reconnection: waiting for the stream to be closed")
      yield* Effect.sleep(reconnectionDelay)
      return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
    })
})

/** How long `test_cancellations` waits, at most, for the count it was asked for. */
export const cancellationWait = "5 seconds"

/**
 * `test_cancellable` and `test_cancellations`, so that a client can check that its cancellation reached the
 * server's handler: the first reports progress 0 (when the client sent a token) and waits until it is cancelled,
 * counting each interruption; the second answers `{ cancelled }`, the count, once it is at least `atLeast` (or after
 * waiting `cancellationWait` for it).
 */
export const Cancellation: Layer.Layer<never, never, McpServer.McpServer> = Layer.unwrapEffect(
  Effect.map(SubscriptionRef.make(0), (cancelled) =>
    Layer.mergeAll(
      McpServer.tool({
        name: "test_cancellable",
        description: "Reports progress 0, then waits until the client cancels it; the server counts the cancellations",
        input: Tool.NoInput,
        handler: () =>
          RequestContext.progress(0, 1, "waiting until cancelled").pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => SubscriptionRef.update(cancelled, (n) => n + 1)),
            Effect.as("unreachable: this call ends only when it is cancelled")
          )
      }),
      McpServer.tool({
        name: "test_cancellations",
        description: `How many test_cancellable calls were cancelled; waits (up to ${cancellationWait}) for atLeast`,
        input: Schema.Struct({
          atLeast: Schema.optional(Schema.Int.annotations({ description: "The count to wait for" }))
        }),
        output: Schema.Struct({ cancelled: Schema.Int }),
        handler: ({ atLeast }) =>
          cancelled.changes.pipe(
            Stream.filter((n) => n >= (atLeast ?? 0)),
            Stream.runHead,
            Effect.timeout(cancellationWait),
            Effect.ignore,
            Effect.zipRight(SubscriptionRef.get(cancelled)),
            Effect.map((n) => ({ cancelled: n }))
          )
      })
    ))
)

/** Every tool of the everything server; `echoScopes`: the scopes `echo` requires (default none). */
export const make = (options: { readonly echoScopes?: ReadonlyArray<string> } = {}) =>
  Layer.mergeAll(
    options.echoScopes === undefined ? Echo : echoRequiring(options.echoScopes),
    Divide,
    SimpleText,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    MultipleContentTypes,
    WithLogging,
    WithProgress,
    ErrorHandling,
    Asking.Sampling,
    Asking.Elicitation,
    Asking.ElicitationDefaults,
    Asking.ElicitationEnums,
    JsonSchema2020_12,
    Reconnection,
    Cancellation
  )

/** Every tool, `echo` open to anyone. */
export const layer = make()
