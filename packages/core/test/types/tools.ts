/**
 * Type-level fixture of typeErrors.test.ts (compiled on its own with `tsc -p`, not by the suite's typecheck): each
 * `// error:` comment pins the message tsc must report on the next line; every other line must compile.
 */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { McpServer, RequestContext, Tool } from "../../src/index.js"

class Declared extends Schema.TaggedError<Declared>()("Declared", {}) {}
class Undeclared extends Schema.TaggedError<Undeclared>()("Undeclared", {}) {}

const Input = Schema.Struct({ n: Schema.Number })
const Output = Schema.Struct({ m: Schema.Number })

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type FailureOf<D> = D extends { readonly failure?: Schema.Schema<infer F, infer _FI, never> } ? F : never

// Fits: a declared failure is kept in the definition's type.
export const structured = Tool.define({
  name: "structured",
  input: Input,
  output: Output,
  failure: Declared,
  handler: ({ n }) => n > 0 ? Effect.succeed({ m: n }) : Effect.fail(new Declared())
})
export const keepsFailure: Equals<FailureOf<typeof structured>, Declared> = true

// Fits: a content tool may fail with ToolError and McpError without declaring them, and needs RequestContext.
export const content: Layer.Layer<never, never, McpServer.McpServer> = McpServer.tool({
  name: "content",
  input: Input,
  handler: ({ n }) =>
    Effect.gen(function*() {
      yield* RequestContext.progress(0)
      if (n > 0) return yield* Effect.fail(new Tool.ToolError({ message: "no" }))
      if (n < 0) return yield* Effect.fail(new McpError.InvalidParams({ message: "negative" }))
      return `${n}`
    })
})

// Fits: a definition made earlier registers as it is.
export const registered: Layer.Layer<never, never, McpServer.McpServer> = McpServer.tool(structured)

export const wrongOutput = McpServer.tool({
  name: "wrongOutput",
  input: Input,
  output: Output,
  // error: Tool handler: the handler succeeds with a value the `output` schema does not describe
  handler: ({ n }) => Effect.succeed({ m: String(n) })
})

export const undeclaredFailure = Tool.define({
  name: "undeclaredFailure",
  input: Input,
  output: Output,
  failure: Declared,
  // error: Tool handler: it may fail with Undeclared, which the `failure` schema does not declare
  handler: ({ n }) => Effect.as(Effect.fail(new Undeclared()), { m: n })
})

export const leakedParseError = McpServer.tool({
  name: "leakedParseError",
  input: Input,
  // error: Tool handler: it may fail with ParseError, which the `failure` schema does not declare
  handler: ({ n }) => Schema.decodeUnknown(Schema.String)(n)
})

export const structuredWithoutOutput = McpServer.tool({
  name: "structuredWithoutOutput",
  input: Input,
  // error: Tool handler: a tool without an output schema succeeds with text, content blocks or a CallToolResult
  handler: ({ n }) => Effect.succeed({ m: n })
})
