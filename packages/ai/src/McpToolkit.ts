/**
 * McpToolkit: the tools of MCP servers as an `@effect/ai` Toolkit with its handlers, so that any `LanguageModel` can
 * call them. It is made from one server's `McpClient` (`fromClient`) or from an `McpHost`'s catalogue (`fromHost`,
 * names prefixed by server), as a snapshot of the tools listed then: make it again (it is cheap) to follow
 * `list_changed`, or hand `generateText` the Effect that makes it, which runs once per model call.
 *
 * Each tool's parameters are described to the model by the tool's own `inputSchema` (carried as the `jsonSchema`
 * annotation of `Arguments`, which every provider's schema generation reads), under a name providers accept
 * (`[A-Za-z0-9_-]`, at most 64 characters; `names` maps it back). A call runs in the model call's fiber, so
 * interrupting the model call cancels the MCP call on the wire (`notifications/cancelled`), and its progress goes
 * to the `ToolProgress` sink of the caller's context (`withProgress`). An `isError` result, or a call that failed
 * (a JSON-RPC error, a timeout, a server that is down), is returned to the model as a `ToolCallFailed`: the tools'
 * failure mode is "return", so the model reads what went wrong and may try again.
 */
import { type McpClient, Tool } from "@effect-mcp/core"
import type { McpHost } from "@effect-mcp/host"
import { Mcp } from "@effect-mcp/schema"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { providerNames } from "./internal/toolNames.js"

/**
 * The parameters of an MCP tool as the model sends them: any JSON object (every key kept), described to the model by
 * the tool's `inputSchema` (the server checks them).
 */
export const Arguments = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** What an MCP tool's call returns to the model: its content and, when the tool gave one, its structured content. */
export const ToolOutput = Schema.Struct({
  content: Schema.Array(Mcp.ContentBlock),
  structuredContent: Schema.optional(Schema.Unknown)
})

/** What an MCP tool's call returns to the model. */
export type ToolOutput = typeof ToolOutput.Type

/**
 * An MCP tool call that did not succeed, as the model reads it: the tool answered with an `isError` result
 * (`ToolError`, with its content, and its typed failure as `failure` when it carries one: an effect-mcp server's
 * `_meta["effect-mcp/failure"]`, else its `structuredContent`), or the call itself failed (`CallFailed`: a JSON-RPC
 * error, a timeout, a server that is down; `error` names which).
 */
export class ToolCallFailed extends Schema.TaggedError<ToolCallFailed>()("ToolCallFailed", {
  tool: Schema.String,
  reason: Schema.Literal("ToolError", "CallFailed"),
  message: Schema.String,
  error: Schema.optional(Schema.String),
  content: Schema.optional(Schema.Array(Mcp.ContentBlock)),
  failure: Schema.optional(Schema.Unknown)
}) {}

/** An MCP tool as an `@effect/ai` tool. */
export type McpTool = AiTool.Tool<string, {
  readonly parameters: typeof Arguments
  readonly success: typeof ToolOutput
  readonly failure: typeof ToolCallFailed
  readonly failureMode: "return"
}>

/** The tools of an `McpToolkit`, by their provider-safe names. */
export type McpTools = Record<string, McpTool>

/** One progress update of an MCP tool call made by a model. */
export interface ProgressUpdate {
  /** The tool's name in the toolkit (what the model called). */
  readonly tool: string
  /** The tool's MCP name (the host's prefixed name for `fromHost`). */
  readonly target: string
  readonly progress: McpClient.Progress
}

/** Where the progress of MCP tool calls goes: nowhere by default (no progress token is then sent). */
export class ToolProgress extends Context.Reference<ToolProgress>()("@effect-mcp/ai/McpToolkit/ToolProgress", {
  defaultValue: (): Option.Option<(update: ProgressUpdate) => Effect.Effect<void>> => Option.none()
}) {}

/** Sends the progress of the MCP tool calls made inside `self` (e.g. a model call) to `onProgress`. */
export const withProgress =
  (onProgress: (update: ProgressUpdate) => Effect.Effect<void>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(self, ToolProgress, Option.some(onProgress))

/** Which tools to offer and how to call them. */
export interface Options {
  /** Offers only the tools this accepts (by MCP name: the host's prefixed name for `fromHost`); default all. */
  readonly include?: (name: string, tool: Mcp.Tool) => boolean
  /** The options of every call (timeout, ...). */
  readonly call?: Omit<McpClient.CallOptions, "onProgress">
}

/** MCP tools as an `@effect/ai` Toolkit. */
export interface McpToolkit {
  /** The toolkit (merge it with others with `Toolkit.merge`, and `layer` with their handlers). */
  readonly toolkit: Toolkit.Toolkit<McpTools>
  /** The handlers of the toolkit's tools. */
  readonly layer: Layer.Layer<AiTool.Handler<string>>
  /** The toolkit with its handlers: what `LanguageModel.generateText({ toolkit })` takes. */
  readonly withHandler: Toolkit.WithHandler<McpTools>
  /** Each tool's MCP name, by its name in the toolkit. */
  readonly names: ReadonlyMap<string, string>
}

/** A failure of a call: what every client and host call error has. */
interface CallError {
  readonly _tag: string
  readonly message: string
}

/** Where tools come from: a client or a host. */
interface Source<E extends CallError> {
  readonly tools: ReadonlyArray<{ readonly name: string; readonly tool: Mcp.Tool }>
  readonly call: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: Omit<McpClient.CallOptions, "onProgress"> | undefined
  ) => Effect.Effect<Mcp.CallToolResult, E>
  readonly callStream: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: Omit<McpClient.CallOptions, "onProgress"> | undefined
  ) => Stream.Stream<McpClient.CallEvent<Mcp.CallToolResult>, E>
}

/** The MCP tool as the model sees it: its provider-safe name, description, parameters and hints. */
const toAiTool = (name: string, tool: Mcp.Tool): McpTool => {
  const made = AiTool.make(name, {
    description: tool.description ?? tool.title ?? tool.annotations?.title,
    success: ToolOutput,
    failure: ToolCallFailed,
    failureMode: "return"
  }).setParameters(Arguments.annotations({ jsonSchema: tool.inputSchema }))
  const title = tool.title ?? tool.annotations?.title
  const hints = tool.annotations ?? {}
  let annotations: Context.Context<never> = Context.empty()
  if (title !== undefined) annotations = Context.add(annotations, AiTool.Title, title)
  if (hints.readOnlyHint !== undefined) annotations = Context.add(annotations, AiTool.Readonly, hints.readOnlyHint)
  if (hints.destructiveHint !== undefined) {
    annotations = Context.add(annotations, AiTool.Destructive, hints.destructiveHint)
  }
  if (hints.idempotentHint !== undefined) {
    annotations = Context.add(annotations, AiTool.Idempotent, hints.idempotentHint)
  }
  if (hints.openWorldHint !== undefined) annotations = Context.add(annotations, AiTool.OpenWorld, hints.openWorldHint)
  return made.annotateContext(annotations)
}

/** The text of a result's text blocks. */
const textOf = (content: ReadonlyArray<Mcp.ContentBlock>): string =>
  content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n")

/** The typed failure an `isError` result carries, encoded, if any. */
const failureOf = (result: Mcp.CallToolResult): unknown => {
  const meta = result._meta
  return meta !== undefined && Object.hasOwn(meta, Tool.failureKey) ? meta[Tool.failureKey] : result.structuredContent
}

/** A result as the model reads it: its content and structured content, or a `ToolCallFailed` when it is an error. */
const outputOf = (tool: string, result: Mcp.CallToolResult): Effect.Effect<ToolOutput, ToolCallFailed> => {
  if (result.isError !== true) {
    return Effect.succeed(
      result.structuredContent === undefined
        ? { content: result.content }
        : { content: result.content, structuredContent: result.structuredContent }
    )
  }
  const failure = failureOf(result)
  return Effect.fail(
    new ToolCallFailed({
      tool,
      reason: "ToolError",
      message: textOf(result.content) || `the tool ${tool} reported an error`,
      content: result.content,
      ...(failure === undefined ? {} : { failure })
    })
  )
}

/** The result that ends a call's stream of events. */
const resultOf = <E>(
  events: Stream.Stream<McpClient.CallEvent<Mcp.CallToolResult>, E>,
  report: (progress: McpClient.Progress) => Effect.Effect<void>
): Effect.Effect<Option.Option<Mcp.CallToolResult>, E> =>
  events.pipe(
    Stream.tap((event) => (event._tag === "Progress" ? report(event.progress) : Effect.void)),
    Stream.filterMap((event) => (event._tag === "Result" ? Option.some(event.result) : Option.none())),
    Stream.runLast
  )

/** The handler of one tool: the call over the wire (with progress when someone listens), its outcome for the model. */
const handlerOf = <E extends CallError>(source: Source<E>, options: Options, tool: string, target: string) => {
  const failed = (error: E) =>
    new ToolCallFailed({ tool, reason: "CallFailed", message: error.message || error._tag, error: error._tag })
  const ended = new ToolCallFailed({
    tool,
    reason: "CallFailed",
    message: `the call of ${target} ended without a result`
  })
  return (params: typeof Arguments.Type): Effect.Effect<ToolOutput, ToolCallFailed> =>
    Effect.flatMap(
      ToolProgress,
      Option.match({
        onNone: () => source.call(target, params, options.call),
        onSome: (report) =>
          Effect.flatMap(
            resultOf(source.callStream(target, params, options.call), (progress) => report({ tool, target, progress })),
            Option.match({ onNone: () => Effect.fail(ended), onSome: Effect.succeed })
          )
      })
    ).pipe(
      Effect.mapError((error) => (error instanceof ToolCallFailed ? error : failed(error))),
      Effect.flatMap((result) => outputOf(tool, result))
    )
}

const make = <E extends CallError>(source: Source<E>, options: Options): Effect.Effect<McpToolkit> =>
  Effect.gen(function*() {
    const offered = source.tools.filter(({ name, tool }) => options.include?.(name, tool) ?? true)
    const safe = providerNames(offered.map(({ name }) => name))
    const names = new Map(offered.map(({ name }, i) => [safe[i]!, name] as const))
    const toolkit: Toolkit.Toolkit<McpTools> = Toolkit.make(...offered.map(({ tool }, i) => toAiTool(safe[i]!, tool)))
    const handlers = Object.fromEntries(
      [...names].map(([tool, target]) => [tool, handlerOf(source, options, tool, target)] as const)
    )
    const context = yield* toolkit.toContext(handlers)
    const withHandler = yield* Effect.provide(toolkit, context)
    return { toolkit, layer: Layer.succeedContext(context), withHandler, names }
  })

/** The tools of one server, listed now through its client, as a Toolkit whose handlers call them. */
export const fromClient = (
  client: McpClient.McpClientService,
  options: Options = {}
): Effect.Effect<McpToolkit, McpClient.McpClientError> =>
  Effect.flatMap(client.listTools(), (tools) =>
    make({
      tools: tools.map((tool) => ({ name: tool.name, tool })),
      call: client.callTool,
      callStream: client.callToolStream
    }, options))

/** The tools of a host's catalogue now (names prefixed by server), as a Toolkit whose handlers call them. */
export const fromHost = (host: McpHost.McpHostService, options: Options = {}): Effect.Effect<McpToolkit> =>
  Effect.flatMap(host.catalogue, ({ tools }) =>
    make({
      tools: tools.map(({ name, tool }) => ({ name, tool })),
      call: host.callTool,
      callStream: host.callToolStream
    }, options))
