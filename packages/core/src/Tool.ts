/**
 * Tools: a name, Effect Schemas for input, output and typed failure, and a handler Effect.
 * `make` turns a definition into the descriptor clients list (JSON Schemas generated from the
 * Effect Schemas) and a call that decodes arguments, runs the handler and encodes its outcome:
 * success as `structuredContent` (with an output schema) or content, a typed failure as an
 * `isError: true` result, an `McpError` as a JSON-RPC error.
 *
 * A typed failure's wire form: `isError: true`, its encoded value as JSON text (what a model or a
 * person reads) and under `_meta["effect-mcp/failure"]` (what `decodeFailure` reads, in every
 * revision). A declared `outputSchema` binds every `structuredContent`, errors included (the SDK
 * 1.x client validates it on error results too and throws when it does not conform), so the error
 * result of a tool with an output schema carries no `structuredContent`; a tool without one also
 * gets the value (when it is an object) as `structuredContent`, which no client checks.
 */
import { Codec, Json, type Mcp, McpError, Revision } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { runHandler } from "./internal/handlerContext.js"
import { objectSchema } from "./internal/jsonSchema.js"
import * as RequiredScopes from "./internal/requiredScopes.js"
import type { RequestContext, RequestContextService } from "./RequestContext.js"

/** A failure a handler raises to return an `isError: true` result with a text message. */
export class ToolError extends Data.TaggedError("ToolError")<{
  readonly message: string
  /** Extra content to return with the error text. */
  readonly content?: ReadonlyArray<Mcp.ContentBlock>
}> {}

/** What a tool without an output schema may return: text, content blocks, or a whole result. */
export type ToolContent = string | Mcp.ContentBlock | ReadonlyArray<Mcp.ContentBlock> | Mcp.CallToolResult

/** The descriptor fields of a tool other than its schemas. */
export interface ToolInfo {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly annotations?: Mcp.ToolAnnotations
  readonly icons?: ReadonlyArray<Mcp.Icon>
  readonly execution?: Mcp.ToolExecution
  /** Declares a long-running tool that clients may (`optional`) or must (`required`) call as a task. */
  readonly task?: "optional" | "required"
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** A tool ready to be registered: its descriptor and its call, with its requirements provided. */
export interface Tool {
  /** The descriptor clients list. */
  readonly descriptor: Mcp.Tool
  /** Decodes arguments, runs the handler, encodes the outcome. */
  readonly call: (
    args: Readonly<Record<string, unknown>> | undefined,
    context: RequestContextService
  ) => Effect.Effect<Mcp.CallToolResult, McpError.McpError>
  /** The scopes a caller's token must grant (see `Protected`). */
  readonly scopes?: ReadonlyArray<string>
}

/** The access a definition requires. */
export interface Protected {
  /**
   * The scopes the request's token must grant, all of them: checked before the handler runs (over HTTP a token that
   * lacks one gets 403 `insufficient_scope`; elsewhere, or without a token, the call fails with -32001).
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * The contract of a tool whose success is described by an output schema: its name, descriptor fields and schemas
 * without a handler. A server implements it (`McpServer.tool({ ...contract, handler })`), a client calls it
 * (`client.call(contract, input)`), as `@effect/rpc` shares a request schema.
 */
export interface StructuredContract<I, II, O, OI, F, FI> extends ToolInfo, Protected {
  readonly input: Schema.Schema<I, II, never>
  readonly output: Schema.Schema<O, OI, never>
  /** The typed failure of the handler, besides ToolError and McpError. */
  readonly failure?: Schema.Schema<F, FI, never>
}

/** The contract of a tool that returns content (see `StructuredContract`). */
export interface ContentContract<I, II, F, FI> extends ToolInfo, Protected {
  readonly input: Schema.Schema<I, II, never>
  readonly output?: undefined
  /** The typed failure of the handler, besides ToolError and McpError. */
  readonly failure?: Schema.Schema<F, FI, never>
}

/** A tool definition whose success is described by an output schema. */
export interface StructuredDefinition<I, II, O, OI, F, FI, R> extends StructuredContract<I, II, O, OI, F, FI> {
  readonly handler: (input: I) => Effect.Effect<O, F | ToolError | McpError.McpError, R>
}

/** A tool definition that returns content. */
export interface ContentDefinition<I, II, F, FI, R> extends ContentContract<I, II, F, FI> {
  readonly handler: (input: I) => Effect.Effect<ToolContent, F | ToolError | McpError.McpError, R>
}

/** Any tool definition. */
export type Definition<I, II, O, OI, F, FI, R> =
  | StructuredDefinition<I, II, O, OI, F, FI, R>
  | ContentDefinition<I, II, F, FI, R>

const text = (value: string): Mcp.TextContent => ({ type: "text", text: value })

const isContentBlock = (u: unknown): u is Mcp.ContentBlock => Json.isRecord(u) && typeof u.type === "string"

/** Normalises what a content handler returned into a result. */
export const toResult = (value: ToolContent): Mcp.CallToolResult => {
  if (typeof value === "string") return { content: [text(value)] }
  if (Array.isArray(value)) return { content: value as ReadonlyArray<Mcp.ContentBlock> }
  if (isContentBlock(value)) return { content: [value] }
  return value as Mcp.CallToolResult
}

const asJsonText = (u: unknown) => (typeof u === "string" ? u : JSON.stringify(u))

/** The `_meta` key of an `isError` result that carries the tool's typed failure, encoded with its failure schema. */
export const failureKey = "effect-mcp/failure"

/**
 * A typed failure as an `isError` result: never `structuredContent` when the tool declares an output schema. A value
 * the failure schema does not encode (or a tool without one: only a cast lets such a value through the types) is the
 * handler's bug: logged, and answered -32603 with nothing of it on the wire.
 */
const encodeFailure = <F, FI>(
  name: string,
  failure: Schema.Schema<F, FI, never> | undefined,
  error: F,
  hasOutputSchema: boolean
): Effect.Effect<Mcp.CallToolResult, McpError.InternalError> => {
  const encoded = failure === undefined ? undefined : Schema.encodeEither(failure)(error)
  if (encoded === undefined || Either.isLeft(encoded)) {
    return Effect.logError(
      `effect-mcp: tool ${name} failed with a value ${
        failure === undefined ? "but declares no failure schema" : "its failure schema does not encode"
      }`,
      error
    ).pipe(Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" }))))
  }
  const value = encoded.right
  return Effect.succeed({
    content: [text(asJsonText(value))],
    isError: true,
    _meta: { [failureKey]: value },
    ...(hasOutputSchema || !Json.isRecord(value) ? {} : { structuredContent: value })
  })
}

/**
 * Reads the typed failure of a tool's `isError` result with the tool's failure schema: the value under
 * `_meta["effect-mcp/failure"]`, else (a peer that does not set it) its `structuredContent`. None for a result
 * that is not an error or carries no value the schema accepts.
 */
export const decodeFailure = <F, FI>(
  failure: Schema.Schema<F, FI, never>
): (result: Mcp.CallToolResult) => Option.Option<F> => {
  const decode = Schema.decodeUnknownOption(failure)
  return (result) => {
    if (result.isError !== true) return Option.none()
    const meta = result._meta
    const carried = meta !== undefined && Object.hasOwn(meta, failureKey) ? meta[failureKey] : result.structuredContent
    return carried === undefined ? Option.none() : decode(carried)
  }
}

const invalidArguments = (
  name: string,
  error: ParseResult.ParseError,
  revision: Revision.Revision
): Effect.Effect<Mcp.CallToolResult, McpError.InvalidParams> => {
  const detail = Codec.describe(error)
  const message = `Invalid arguments for tool ${name}: ${detail}`
  // From 2025-11-25 input validation errors are tool execution errors the model can correct.
  return Revision.atLeast(revision, "2025-11-25")
    ? Effect.succeed({ content: [text(message)], isError: true })
    : Effect.fail(new McpError.InvalidParams({ message }))
}

const descriptorOf = <I, II, O, OI, F, FI, R>(def: Definition<I, II, O, OI, F, FI, R>): Mcp.Tool => {
  const { handler: _h, input, output, failure: _f, scopes: _s, task, ...info } = def
  return {
    ...info,
    ...(task === undefined ? {} : { execution: { ...info.execution, taskSupport: task } }),
    inputSchema: objectSchema(input) as Mcp.Tool["inputSchema"],
    ...(output === undefined ? {} : { outputSchema: objectSchema(output) as NonNullable<Mcp.Tool["outputSchema"]> })
  }
}

/** What a definition compiles to once, however many servers register it: its descriptor and its codecs. */
interface Compiled<I, O> {
  readonly descriptor: Mcp.Tool
  readonly decodeInput: (
    u: unknown
  ) => Either.Either<I, ParseResult.ParseError> | Effect.Effect<I, ParseResult.ParseError>
  readonly encodeOutput: ((value: O) => Effect.Effect<unknown, ParseResult.ParseError>) | undefined
}

const compiledDefinitions = new WeakMap<object, Compiled<unknown, unknown>>()

const compile = <I, II, O, OI, F, FI, R>(def: Definition<I, II, O, OI, F, FI, R>): Compiled<I, O> => {
  const known = compiledDefinitions.get(def)
  if (known !== undefined) return known as Compiled<I, O>
  const decodeOptions = { errors: "all", onExcessProperty: "ignore" } as const
  // A peer's value that breaks the decoder (see Codec.unreadable) is invalid input, not a defect.
  const decodeInputNow = Codec.safely(Schema.decodeUnknownEither(def.input, decodeOptions))
  const decodeInputAsync = Schema.decodeUnknown(def.input, decodeOptions)
  const compiled: Compiled<I, O> = {
    descriptor: descriptorOf(def),
    // Decoded synchronously (no Effect per call); only a schema with asynchronous transformations needs the Effect.
    decodeInput: (u) => {
      const decoded = decodeInputNow(u)
      return Either.isRight(decoded) || decoded.left.issue._tag !== "Forbidden" ? decoded : decodeInputAsync(u)
    },
    encodeOutput: def.output === undefined ? undefined : Schema.encode(def.output)
  }
  compiledDefinitions.set(def, compiled as Compiled<unknown, unknown>)
  return compiled
}

/** Turns a definition into a tool, capturing the handler's requirements from the given context. */
export const make = <I, II, O, OI, F, FI, R>(
  def: Definition<I, II, O, OI, F, FI, R>,
  context: Context.Context<Exclude<R, RequestContext>>
): Tool => {
  const { decodeInput, descriptor, encodeOutput } = compile(def)
  const encoded = (value: unknown): Effect.Effect<Mcp.CallToolResult, McpError.McpError> =>
    encodeOutput === undefined
      ? Effect.succeed(toResult(value as ToolContent))
      : encodeOutput(value as O).pipe(
        Effect.map((structured) => ({ content: [text(asJsonText(structured))], structuredContent: structured })),
        Effect.catchAll((e) =>
          Effect.logError(`effect-mcp: tool ${def.name} returned a value its output schema rejects`, e).pipe(
            Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" })))
          )
        )
      )
  const failed = (error: F | ToolError | McpError.McpError): Effect.Effect<Mcp.CallToolResult, McpError.McpError> => {
    if (McpError.isMcpError(error)) return Effect.fail(error)
    if (error instanceof ToolError) {
      return Effect.succeed({ content: [text(error.message), ...(error.content ?? [])], isError: true })
    }
    return encodeFailure(def.name, def.failure, error as F, def.output !== undefined)
  }
  /** Runs the handler on decoded input: its value encoded, its typed failure an `isError` result or an McpError. */
  const run = (input: I, ctx: RequestContextService) =>
    Effect.matchEffect(
      runHandler(def.handler(input) as Effect.Effect<unknown, F | ToolError | McpError.McpError, R>, context, ctx),
      { onSuccess: encoded, onFailure: failed }
    )
  // Input that decoded synchronously (an Either) is matched here, not by an Effect instruction.
  const decodedCall: Tool["call"] = (args, ctx) => {
    const decoded = decodeInput(args ?? {})
    if (Either.isEither(decoded)) {
      return Either.isRight(decoded) ? run(decoded.right, ctx) : invalidArguments(def.name, decoded.left, ctx.revision)
    }
    return Effect.matchEffect(decoded, {
      onFailure: (error) => invalidArguments(def.name, error, ctx.revision),
      onSuccess: (input) => run(input, ctx)
    })
  }
  const scopes = def.scopes
  if (scopes === undefined || scopes.length === 0) return { descriptor, call: decodedCall }
  // Checked before the arguments are decoded: a caller without the scopes learns nothing of the tool's input.
  const what = `the tool ${def.name}`
  const call: Tool["call"] = (args, ctx) => {
    const refusal = RequiredScopes.refused(scopes, what, ctx.auth)
    return refusal === undefined ? decodedCall(args, ctx) : Effect.fail(refusal)
  }
  return { descriptor, call, scopes }
}

/** The names of the error types in `E`: their `_tag`s, or a generic name for an untagged error. */
type ErrorNames<E> = E extends { readonly _tag: infer T extends string } ? T : "an error without a _tag"

/**
 * Whether a handler fits its definition: `unknown` when it does, else a message that names the mistake. It is
 * intersected with the handler's type, so that a mistake is reported on the handler, in words.
 */
export type HandlerCheck<A, E, O, F> = [Exclude<E, F | ToolError | McpError.McpError>] extends [never]
  ? [O] extends [never] ? [A] extends [ToolContent] ? unknown
    : "Tool handler: a tool without an output schema succeeds with text, content blocks or a CallToolResult (declare `output` to return structured data)"
  : [A] extends [O] ? unknown
  : "Tool handler: the handler succeeds with a value the `output` schema does not describe"
  : `Tool handler: it may fail with ${ErrorNames<
    Exclude<E, F | ToolError | McpError.McpError>
  >}, which the \`failure\` schema does not declare (a tool fails with its declared failure, ToolError or McpError)`

/** What a handler returns, before it is checked: any Effect (its success, failure and requirements are read off it). */
export type HandlerEffect = Effect.Effect<unknown, unknown, unknown>

/**
 * What a handler's Effect must be: itself, when it fits the definition (see `HandlerCheck`); else also the message,
 * which no Effect is, so that the mistake is reported on the Effect the handler returns, in words.
 */
export type Checked<X extends HandlerEffect, O, F> =
  & X
  & NoInfer<HandlerCheck<Effect.Effect.Success<X>, Effect.Effect.Error<X>, O, F>>

/**
 * A tool definition before its handler is checked: its contract and a handler returning `X`. The handler's Effect is
 * inferred whole (a handler whose branches return different Effects is inferred as their union), then checked.
 */
export type Unchecked<I, II, O, OI, F, FI, X extends HandlerEffect> = ToolInfo & Protected & {
  readonly input: Schema.Schema<I, II, never>
  readonly output?: Schema.Schema<O, OI, never> | undefined
  readonly failure?: Schema.Schema<F, FI, never> | undefined
  readonly handler: (input: I) => Checked<X, O, F>
}

/** The definition a checked one is: structured when it has an output schema, else content. */
export type Defined<I, II, O, OI, F, FI, R> = [O] extends [never] ? ContentDefinition<I, II, F, FI, R>
  : StructuredDefinition<I, II, O, OI, F, FI, R>

/**
 * A tool definition, checked and inferred (identity at run time). A handler that does not fit the schemas is a type
 * error on the handler that says why; the failure type is the `failure` schema's, kept in the definition's type.
 */
export const define = <I, II, X extends HandlerEffect, O = never, OI = never, F = never, FI = never>(
  def: Unchecked<I, II, O, OI, F, FI, X>
): Defined<I, II, O, OI, F, FI, Effect.Effect.Context<X>> =>
  def as unknown as Defined<I, II, O, OI, F, FI, Effect.Effect.Context<X>>

/** A tool's contract: its name, descriptor fields and schemas, checked and inferred (identity at run time). */
export const contract: {
  <I, II, O, OI, F = never, FI = never>(
    contract: StructuredContract<I, II, O, OI, F, FI>
  ): StructuredContract<I, II, O, OI, F, FI>
  <I, II, F = never, FI = never>(contract: ContentContract<I, II, F, FI>): ContentContract<I, II, F, FI>
} = <T>(contract: T): T => contract

/** An empty input schema, for tools that take no arguments. */
export const NoInput = Schema.Struct({})
