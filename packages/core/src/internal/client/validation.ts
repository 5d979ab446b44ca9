/**
 * Tool result validation, as the official clients do it: the output schemas learnt from `tools/list` bind a
 * `tools/call` result's `structuredContent` (an error's included), and a result that is not an error must have one.
 */
import type { Mcp } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import { ProtocolViolation } from "../../Errors.js"
import { check } from "../jsonSchemaCheck.js"

/** Where a client keeps the output schemas of the tools it listed, by tool name (made with the first one). */
export interface OutputSchemas {
  outputSchemas: Map<string, unknown> | undefined
}

/** Replaces the known output schemas with those of a full tool listing. */
export const rememberOutputSchemas = (holder: OutputSchemas, tools: ReadonlyArray<Mcp.Tool>): Effect.Effect<void> =>
  Effect.sync(() => {
    holder.outputSchemas?.clear()
    for (const t of tools) {
      if (t.outputSchema !== undefined) (holder.outputSchemas ??= new Map()).set(t.name, t.outputSchema)
    }
  })

/** A `tools/call` result checked against the tool's output schema, when one is known. */
export const validated = (
  holder: OutputSchemas,
  name: string,
  result: Mcp.CallToolResult | Mcp.InputRequiredResult
): Effect.Effect<Mcp.CallToolResult, ProtocolViolation> => {
  if (!("content" in result)) {
    return Effect.fail(
      new ProtocolViolation({ reason: `tools/call ${name} returned an unexpected ${result.resultType} result` })
    )
  }
  // As the official clients do: an output schema requires structuredContent on a result that is not an error, and
  // binds any structuredContent, an error's included (SDK 1.x checks both; Tool's typed failures never send one).
  const schema = holder.outputSchemas?.get(name)
  if (schema === undefined) return Effect.succeed(result)
  if (result.structuredContent === undefined) {
    return result.isError === true ? Effect.succeed(result) : Effect.fail(
      new ProtocolViolation({ reason: `tool ${name} has an output schema but returned no structuredContent` })
    )
  }
  const problem = check(schema, result.structuredContent)
  return problem === undefined
    ? Effect.succeed(result)
    : Effect.fail(
      new ProtocolViolation({
        reason: `tool ${name} returned ${
          result.isError === true ? "an error whose structuredContent violates" : "structuredContent that violates"
        } its outputSchema: ${problem}`
      })
    )
}
