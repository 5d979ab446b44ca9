/**
 * `x-mcp-header` (2026-07-28): tool parameters that a tool's `inputSchema` marks to be mirrored
 * into `Mcp-Param-{Name}` headers — finding them, validating the annotations, and reading and
 * comparing their values.
 */
import { Json, McpError } from "@effect-mcp/schema"
import * as Either from "effect/Either"
import * as Wire from "./wire.js"

/** One mirrored parameter. */
export interface ParamHeader {
  /** The `{Name}` of `Mcp-Param-{Name}`. */
  readonly name: string
  /** The chain of `properties` keys from the root. */
  readonly path: ReadonlyArray<string>
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

const countAnnotations = (u: unknown): number => {
  if (Array.isArray(u)) return u.reduce((n: number, v) => n + countAnnotations(v), 0)
  if (!Json.isRecord(u)) return 0
  let n = 0
  for (const [k, v] of Object.entries(u)) n += k === "x-mcp-header" && !Json.isRecord(v) ? 1 : countAnnotations(v)
  return n
}

/** An `inputSchema` nested deeper than this is refused: finding its annotations walks it. */
const maxSchemaDepth = 256

/** The mirrored parameters of an `inputSchema`, or why its annotations are invalid. */
export const find = (schema: unknown): Either.Either<ReadonlyArray<ParamHeader>, string> => {
  if (Json.exceedsDepth(schema, maxSchemaDepth)) return Either.left(`inputSchema nested deeper than ${maxSchemaDepth}`)
  const found: Array<ParamHeader> = []
  const walk = (node: Record<string, unknown>, path: ReadonlyArray<string>): string | undefined => {
    for (const [key, child] of Object.entries(Json.record(node.properties))) {
      if (!Json.isRecord(child)) continue
      const here = [...path, key]
      if ("x-mcp-header" in child) {
        const name = child["x-mcp-header"]
        if (typeof name !== "string" || !token.test(name)) return `invalid x-mcp-header ${McpError.quote(name)}`
        if (found.some((f) => f.name.toLowerCase() === name.toLowerCase())) return `duplicate x-mcp-header ${name}`
        if (child.type !== "string" && child.type !== "integer" && child.type !== "boolean") {
          return `x-mcp-header ${name} is on a parameter that is not a string, an integer or a boolean`
        }
        found.push({ name, path: here })
      }
      const inner = walk(child, here)
      if (inner !== undefined) return inner
    }
    return undefined
  }
  const problem = walk(Json.record(schema), [])
  if (problem !== undefined) return Either.left(problem)
  if (countAnnotations(schema) !== found.length) {
    return Either.left("x-mcp-header is only allowed on statically reachable properties")
  }
  return Either.right(found)
}

/** The value at a parameter's path in the arguments (undefined when absent or null). */
export const valueAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let at: unknown = args
  for (const key of path) at = Json.record(at)[key]
  return at === null ? undefined : at
}

/** A parameter value as its header value (encoded), or undefined when it cannot be mirrored. */
export const headerValue = (value: unknown): string | undefined => {
  if (typeof value === "string") return Wire.encodeHeaderValue(value)
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value)
  return undefined
}

/** Whether a (decoded) header value matches the body's value (integers compare numerically). */
export const matches = (header: string, value: unknown): boolean => {
  if (typeof value === "number") return header.trim() !== "" && Number(header) === value
  if (typeof value === "boolean") return header === String(value)
  return header === value
}
