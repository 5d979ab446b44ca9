/**
 * Prompts: typed arguments (an Effect Schema Struct of string-encoded fields), completion of each
 * argument, and a handler that returns messages.
 */
import { Codec, type Mcp, McpError } from "@effect-mcp/schema"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { runHandler } from "./internal/handlerContext.js"
import * as RequiredScopes from "./internal/requiredScopes.js"
import * as TypedFailure from "./internal/typedFailure.js"
import type { RequestContext, RequestContextService } from "./RequestContext.js"
import type { Completer } from "./Resource.js"
import type { Protected } from "./Tool.js"

/** The encoded side of a prompt's arguments: strings, as MCP sends them (optional arguments may be absent). */
export type Arguments = Readonly<Record<string, string | undefined>>

/** What a prompt may return: one user message's text, messages, or the whole result. */
export type PromptBody = string | ReadonlyArray<Mcp.PromptMessage> | Mcp.GetPromptResult

/**
 * A prompt definition (`scopes`: what a get requires, see `Tool.Protected`). A failure the `failure` schema declares
 * is sent as a JSON-RPC error carrying the encoded value, which a typed `getPrompt` decodes.
 */
export interface Definition<
  A,
  R,
  I extends Arguments = Readonly<Record<string, string>>,
  F = never,
  FI = never
> extends Protected {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly icons?: ReadonlyArray<Mcp.Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
  /** The arguments: a Struct whose encoded side is strings (as MCP sends them). */
  readonly input?: Schema.Schema<A, I, never>
  /** The typed failure of the handler, besides McpError. */
  readonly failure?: Schema.Schema<F, FI, never>
  readonly complete?: Readonly<Record<string, Completer<R>>>
  readonly handler: (input: A) => Effect.Effect<PromptBody, F | McpError.McpError, R>
}

/** A prompt ready to be registered. */
export interface Prompt {
  readonly descriptor: Mcp.Prompt
  readonly get: (
    args: Readonly<Record<string, string>> | undefined,
    context: RequestContextService
  ) => Effect.Effect<Mcp.GetPromptResult, McpError.McpError>
  readonly complete: (
    argument: string,
    value: string,
    args: Readonly<Record<string, string>>,
    context: RequestContextService
  ) => Effect.Effect<ReadonlyArray<string>, McpError.McpError>
  /** The scopes a caller's token must grant. */
  readonly scopes?: ReadonlyArray<string>
}

/** The description Effect gives every plain string, which says nothing about an argument. */
const builtInDescription = SchemaAST.getDescriptionAnnotation(SchemaAST.stringKeyword).pipe(Option.getOrUndefined)

const argumentsOf = (schema: Schema.Schema.AnyNoContext | undefined): Array<Mcp.PromptArgument> => {
  if (schema === undefined) return []
  const ast = SchemaAST.encodedAST(schema.ast)
  if (!SchemaAST.isTypeLiteral(ast)) return []
  return ast.propertySignatures.map((p) => {
    const description = SchemaAST.getDescriptionAnnotation(p).pipe(
      Option.orElse(() => SchemaAST.getDescriptionAnnotation(p.type)),
      Option.filter((d) => d !== builtInDescription)
    )
    return {
      name: String(p.name),
      required: !p.isOptional,
      ...(Option.isSome(description) ? { description: description.value } : {})
    }
  })
}

/** The result for a body. */
export const toResult = (body: PromptBody): Mcp.GetPromptResult => {
  if (typeof body === "string") return { messages: [{ role: "user", content: { type: "text", text: body } }] }
  if (Array.isArray(body)) return { messages: body as ReadonlyArray<Mcp.PromptMessage> }
  return body as Mcp.GetPromptResult
}

/** Turns a definition into a prompt. */
export const make = <A, R, I extends Arguments, F = never, FI = never>(
  def: Definition<A, R, I, F, FI>,
  context: Context.Context<Exclude<R, RequestContext>>
): Prompt => {
  const { complete, failure, handler, input, scopes, ...info } = def
  const decodeArgs = input === undefined ? undefined : Schema.decodeUnknown(input)
  // A peer's value that breaks the decoder (see Codec.unreadable) is invalid arguments, not a defect.
  const decode = (u: unknown): Effect.Effect<A, ParseResult.ParseError> =>
    decodeArgs === undefined
      ? Effect.succeed({} as A)
      : Effect.catchAllDefect(Effect.suspend(() => decodeArgs(u)), (defect) => Effect.fail(Codec.unreadable(u, defect)))
  const run = <X>(effect: Effect.Effect<X, McpError.McpError, R>, ctx: RequestContextService) =>
    runHandler(effect, context, ctx)
  const declared = argumentsOf(input as Schema.Schema.AnyNoContext | undefined)
  return {
    descriptor: declared.length > 0 ? { ...info, arguments: declared } : info,
    ...(scopes === undefined ? {} : { scopes }),
    get: (given, ctx) => {
      const refusal = RequiredScopes.refused(scopes, `the prompt ${def.name}`, ctx.auth)
      if (refusal !== undefined) return Effect.fail(refusal)
      return decode(given ?? {}).pipe(
        Effect.mapError((e) =>
          e instanceof ParseResult.ParseError
            ? new McpError.InvalidParams({
              message: `Invalid arguments for prompt ${def.name}: ${Codec.describe(e)}`
            })
            : e
        ),
        Effect.flatMap((a) => runHandler(handler(a), context, ctx)),
        Effect.catchIf(
          (e): e is F => !McpError.isMcpError(e),
          (e) => TypedFailure.fail(failure, e, `prompt ${def.name}`)
        ),
        Effect.map(toResult)
      )
    },
    complete: (argument, value, given, ctx) => {
      const completer = complete?.[argument]
      return completer === undefined ? Effect.succeed([]) : run(completer(value, { arguments: given }), ctx)
    }
  }
}
