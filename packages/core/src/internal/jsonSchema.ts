/**
 * JSON Schema for tool `inputSchema` / `outputSchema`, generated from Effect Schemas.
 */
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** A JSON Schema object whose root is `type: "object"` (as MCP requires of tool schemas). */
export const objectSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): Record<string, unknown> => {
  const ast = schema.ast
  if (AST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return { type: "object", properties: {} }
  }
  const raw = JSONSchema.make(schema) as unknown as Record<string, unknown>
  const { $schema: _, ...rest } = raw
  let root: Record<string, unknown> = rest
  const defs = rest.$defs as Record<string, Record<string, unknown>> | undefined
  if (typeof rest.$ref === "string" && defs !== undefined) {
    const { $ref, $defs, ...siblings } = rest
    const target = defs[String($ref).replace("#/$defs/", "")] ?? {}
    root = { ...siblings, ...target, $defs }
  }
  if (root.type !== "object") root = { type: "object", ...root }
  return root
}
