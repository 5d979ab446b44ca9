/**
 * ToolkitServer: an `@effect/ai` Toolkit served as MCP tools. Each tool the toolkit defines becomes a tool of the
 * current `McpServer`, defined with the tool's own schemas (as `McpServer.tool` would be), so that:
 *
 * - its listed `inputSchema` is generated from its parameters schema (JSON Schema 2020-12, like every tool here) and
 *   arguments are decoded with it (a bad argument is an `isError` result the model can correct, or -32602 before
 *   2025-11-25);
 * - a success schema that describes an object is its `outputSchema`, and the encoded value its `structuredContent`;
 *   any other success value is returned as JSON text;
 * - its failure schema is its typed failure, whichever its failure mode: an `isError` result that carries the encoded
 *   failure (`Tool.decodeFailure` in core reads it back);
 * - its description, title and hints (`Title`, `Readonly`, `Destructive`, `Idempotent`, `OpenWorld`) are listed.
 *
 * The handlers are the toolkit's own, from its handler Layer (`toolkit.toLayer(...)`), run as `@effect/ai` runs them
 * (with the context their Layer was built in). A tool that lists `RequestContext` among its dependencies may report
 * progress, log to the client or ask it (elicitation, sampling) from its handler. Provider-defined tools (run by a
 * model's provider) are not served. The tools are registered while the Layer is alive.
 */
import { McpServer, type RequestContext, type Tool } from "@effect-mcp/core"
import type { Mcp } from "@effect-mcp/schema"
import * as AiTool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"

/** What serving a toolkit's tools requires: the server, the tools' handlers and their other dependencies. */
export type Requirements<Tools extends Record<string, AiTool.Any>> =
  | McpServer.McpServer
  | AiTool.HandlersFor<Tools>
  | Exclude<AiTool.Requirements<Tools[keyof Tools]>, RequestContext.RequestContext>

/** A schema with its types erased, as the definitions built here hold them. */
type Erased = Schema.Schema<unknown, unknown, never>

/** Whether the encoded side of a schema is a JSON object (what an `outputSchema` must describe). */
const describesObject = (ast: AST.AST): boolean => {
  switch (ast._tag) {
    case "TypeLiteral":
      return true
    case "Refinement":
    case "Transformation":
      return describesObject(ast.from)
    case "Union":
      return ast.types.every(describesObject)
    case "Suspend":
      return describesObject(ast.f())
    default:
      return false
  }
}

/** Runs the toolkit's handler of `tool` as `@effect/ai` does: in the context its Layer was built in, the caller's over it. */
const handlerOf = (tool: AiTool.Any) => {
  const handler = Context.GenericTag<AiTool.Handler<string>>(tool.id)
  return (params: unknown): Effect.Effect<unknown, unknown, AiTool.Handler<string>> =>
    Effect.flatMap(handler, (h) =>
      Effect.mapInputContext(
        h.handler(params),
        (input: Context.Context<never>) => Context.merge(h.context, input)
      ))
}

/** The descriptor fields of a tool: description, title, hints. */
const infoOf = (tool: AiTool.Any): Tool.ToolInfo => {
  const description = tool.description ?? AiTool.getDescriptionFromSchemaAst(tool.parametersSchema.ast)
  const title = Option.getOrUndefined(Context.getOption(tool.annotations, AiTool.Title))
  const annotations: Mcp.ToolAnnotations = {
    ...(title === undefined ? {} : { title }),
    readOnlyHint: Context.get(tool.annotations, AiTool.Readonly),
    destructiveHint: Context.get(tool.annotations, AiTool.Destructive),
    idempotentHint: Context.get(tool.annotations, AiTool.Idempotent),
    openWorldHint: Context.get(tool.annotations, AiTool.OpenWorld)
  }
  return {
    name: tool.name,
    ...(description === undefined ? {} : { description }),
    ...(title === undefined ? {} : { title }),
    annotations
  }
}

/** A success value that is not an object, as text: its encoded form as JSON (nothing for `void`). */
const asText = (encoded: unknown): Tool.ToolContent =>
  encoded === undefined ? [] : typeof encoded === "string" ? encoded : JSON.stringify(encoded)

/** Registers an `@effect/ai` tool as an MCP tool (structured when its success is an object) while the Layer is alive. */
const served = (tool: AiTool.Any): Layer.Layer<never, never, McpServer.McpServer | AiTool.Handler<string>> => {
  const input = tool.parametersSchema as unknown as Erased
  const success = tool.successSchema as unknown as Erased
  const failure = tool.failureSchema as unknown as Erased
  const run = handlerOf(tool)
  const info = infoOf(tool)
  if (describesObject(success.ast)) return McpServer.tool({ ...info, input, output: success, failure, handler: run })
  const encode = Schema.encode(success)
  return McpServer.tool({
    ...info,
    input,
    failure,
    handler: (params) => Effect.flatMap(run(params), (value) => Effect.map(Effect.orDie(encode(value)), asText))
  })
}

/** Serves the tools of `toolkit` on the current McpServer while the Layer is alive (handlers from its handler Layer). */
export const layer = <Tools extends Record<string, AiTool.Any>>(
  toolkit: Toolkit.Toolkit<Tools>
): Layer.Layer<never, never, Requirements<Tools>> => {
  const layers = Object.values(toolkit.tools).filter(AiTool.isUserDefined).map(served)
  const [first, ...rest] = layers
  // The handlers' requirements are the toolkit's: captured by `McpServer.tool` from the Layer's context.
  return (first === undefined ? Layer.empty : Layer.mergeAll(first, ...rest)) as Layer.Layer<
    never,
    never,
    Requirements<Tools>
  >
}
