/**
 * Calls made from a definition, as `@effect/rpc` makes them from a request schema: the tool's (or prompt's)
 * arguments encoded with its input schema, its result decoded with its output schema, and its typed failure decoded
 * with its failure schema. A definition shared by a server and its clients is then a typed contract.
 */
import { Codec, type Mcp, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ProtocolViolation } from "../../Errors.js"
import type { CallOptions, McpClientError } from "../../McpClient.js"
import type * as Prompt from "../../Prompt.js"
import * as Tool from "../../Tool.js"
import * as TypedFailure from "../typedFailure.js"

/** What a client needs of a tool definition to call it: its name and schemas (a full definition will do). */
export interface ToolContract<I, II, O, OI, F, FI> {
  readonly name: string
  readonly input: Schema.Schema<I, II, never>
  readonly output?: Schema.Schema<O, OI, never> | undefined
  readonly failure?: Schema.Schema<F, FI, never> | undefined
}

/** What a client needs of a prompt definition to get it: its name and schemas (a full definition will do). */
export interface PromptContract<A, I extends Prompt.Arguments, F, FI> {
  readonly name: string
  readonly input?: Schema.Schema<A, I, never> | undefined
  readonly failure?: Schema.Schema<F, FI, never> | undefined
}

/** The requests a typed call is made of (the client's own untyped calls). */
export interface Untyped {
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<Mcp.CallToolResult, McpClientError>
  readonly getPromptByName: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions
  ) => Effect.Effect<Mcp.GetPromptResult, McpClientError>
}

/** The text of a result's text blocks, one per line (what an untyped `isError` result says). */
const textOf = (result: Mcp.CallToolResult): string =>
  result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n")

/** Encodes `input` with `schema`, failing with a ProtocolViolation that names `what`. */
const encodeWith = <A, I>(schema: Schema.Schema<A, I, never>, input: A, what: string) =>
  Effect.mapError(
    Schema.encode(schema)(input),
    (e) => new ProtocolViolation({ reason: `${what}: ${Codec.describe(e)}` })
  )

/**
 * Calls a tool from its definition: the input encoded, a success decoded with the output schema (the whole result
 * for a tool without one), a typed failure decoded with the failure schema, any other `isError` result a ToolError.
 */
export const callTool = <I, II, O, OI, F, FI>(
  client: Untyped,
  tool: ToolContract<I, II, O, OI, F, FI>,
  input: I,
  options?: CallOptions
): Effect.Effect<O | Mcp.CallToolResult, F | Tool.ToolError | McpClientError> => {
  const decodeFailure = tool.failure === undefined ? undefined : Tool.decodeFailure(tool.failure)
  const decodeOutput = tool.output === undefined ? undefined : Schema.decodeUnknown(tool.output)
  return encodeWith(tool.input, input, `invalid arguments for tool ${tool.name}`).pipe(
    Effect.flatMap((args) => client.callTool(tool.name, args as Readonly<Record<string, unknown>>, options)),
    Effect.flatMap((result): Effect.Effect<O | Mcp.CallToolResult, F | Tool.ToolError | ProtocolViolation> => {
      if (result.isError === true) {
        const failure = decodeFailure === undefined ? Option.none() : decodeFailure(result)
        return Option.isSome(failure)
          ? Effect.fail(failure.value)
          : Effect.fail(new Tool.ToolError({ message: textOf(result), content: result.content }))
      }
      if (decodeOutput === undefined) return Effect.succeed(result)
      return result.structuredContent === undefined
        ? Effect.fail(new ProtocolViolation({ reason: `tool ${tool.name} returned no structuredContent` }))
        : Effect.mapError(
          decodeOutput(result.structuredContent),
          (e) =>
            new ProtocolViolation({
              reason: `tool ${tool.name} returned a result its output schema rejects: ${Codec.describe(e)}`
            })
        )
    })
  )
}

/** Gets a prompt from its definition: the arguments encoded, a typed failure decoded with the failure schema. */
export const getPrompt = <A, I extends Prompt.Arguments, F, FI>(
  client: Untyped,
  prompt: PromptContract<A, I, F, FI>,
  args: A,
  options?: CallOptions
): Effect.Effect<Mcp.GetPromptResult, F | McpClientError> => {
  const decodeFailure = prompt.failure === undefined ? undefined : TypedFailure.decodeError(prompt.failure)
  const encoded: Effect.Effect<I | undefined, ProtocolViolation> = prompt.input === undefined
    ? Effect.succeed(undefined)
    : encodeWith(prompt.input, args, `invalid arguments for prompt ${prompt.name}`)
  return encoded.pipe(
    Effect.flatMap((wire) => client.getPromptByName(prompt.name, wire as Readonly<Record<string, string>>, options)),
    Effect.catchIf(
      (e): e is McpError.McpError => decodeFailure !== undefined && McpError.isMcpError(e),
      (e): Effect.Effect<never, F | McpError.McpError> => {
        const failure = decodeFailure!(e)
        return Option.isSome(failure) ? Effect.fail(failure.value) : Effect.fail(e)
      }
    )
  )
}
