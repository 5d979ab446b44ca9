/**
 * JSON Schema for tool `inputSchema` / `outputSchema`, generated from Effect Schemas in JSON Schema 2020-12 (the
 * dialect MCP reads when a schema names none, since 2025-11-25), in a form every client accepts:
 *
 * - no `$schema` (2020-12 is the default; a draft-07 `$schema` would mislead a 2020-12 client);
 * - a tuple as `prefixItems` with `minItems`/`maxItems`, never draft-07's array-valued `items`/`additionalItems`;
 *   a rest element is `items`. A closed tuple says `maxItems` rather than `items: false`: the same in 2020-12, and
 *   the official SDK 1.x client validates with a draft-07 Ajv, where `items: false` rejects every element;
 * - `$ref`s are same-document pointers `#/$defs/<name>` into the root's `$defs` (2026-07-28, SEP-2106: a client
 *   never dereferences any other), named with `[A-Za-z0-9_.-]` only so that no URI encoding is needed; a root `$ref`
 *   (a `Schema.Class`, an identified or recursive struct) is inlined so the root is `type: "object"`, and `$defs`
 *   nothing references are dropped; recursive definitions keep their `$defs` entry;
 * - without Effect's `$id: "/schemas/unknown"` (and `any`, `object`, ...) markers: two different subschemas with one
 *   `$id` make Ajv refuse the whole schema.
 *
 * Built once per tool definition (Tool.ts caches the descriptor), never per call.
 */
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

type Node = Record<string, unknown>

const isNode = (u: unknown): u is Node => typeof u === "object" && u !== null && !Array.isArray(u)

/** Keywords whose value is a map from names to subschemas. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"])
/** Keywords whose value is a list of subschemas. */
const schemaLists = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])
/** Keywords whose value is one subschema (every other keyword holds data or annotations, left as it is). */
const schemaValued = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema"
])

const defsPrefix = "#/$defs/"

/** The `$defs` key a `#/$defs/...` pointer names (RFC 6901 unescaping), or undefined for any other `$ref`. */
const pointedName = (ref: string): string | undefined =>
  ref.startsWith(defsPrefix) ? ref.slice(defsPrefix.length).replace(/~1/g, "/").replace(/~0/g, "~") : undefined

/** A name for each definition that needs no escaping in a URI fragment or a JSON Pointer, unique among them. */
const safeNames = (names: ReadonlyArray<string>): Map<string, string> => {
  const renamed = new Map<string, string>()
  const taken = new Set(names.filter((name) => /^[A-Za-z0-9_.-]+$/.test(name)))
  for (const name of names) {
    if (taken.has(name)) {
      renamed.set(name, name)
      continue
    }
    const base = name.replace(/[^A-Za-z0-9_.-]/g, "_") || "_"
    let safe = base
    for (let i = 2; taken.has(safe); i++) safe = `${base}_${i}`
    taken.add(safe)
    renamed.set(name, safe)
  }
  return renamed
}

/** One subschema rewritten as the module header says: refs renamed, markers dropped, tuples in their 2020-12 form. */
const rewrite = (schema: unknown, names: ReadonlyMap<string, string>): unknown => {
  if (!isNode(schema)) return schema
  const out: Node = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$id" && typeof value === "string" && value.startsWith("/schemas/")) continue
    if (key === "$ref" && typeof value === "string") {
      const name = pointedName(value)
      const safe = name === undefined ? undefined : names.get(name)
      out[key] = safe === undefined ? value : defsPrefix + safe
    } else if (schemaMaps.has(key) && isNode(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, rewrite(sub, names)]))
    } else if ((schemaLists.has(key) || key === "items") && Array.isArray(value)) {
      out[key] = value.map((sub) => rewrite(sub, names))
    } else if (schemaValued.has(key)) {
      out[key] = rewrite(value, names)
    } else {
      out[key] = value
    }
  }
  return tupleOf(out)
}

/** A tuple in 2020-12 words: draft-07 `items: [...]` / `additionalItems` become `prefixItems` / `items`; closed by `maxItems`. */
const tupleOf = (schema: Node): Node => {
  if (Array.isArray(schema.items)) {
    const { items, additionalItems, ...rest } = schema
    schema = { ...rest, prefixItems: items, ...(additionalItems === undefined ? {} : { items: additionalItems }) }
  }
  if (Array.isArray(schema.prefixItems) && schema.items === false) {
    const { items: _, ...rest } = schema
    const length = schema.prefixItems.length
    schema = { ...rest, maxItems: typeof rest.maxItems === "number" ? Math.min(rest.maxItems, length) : length }
  }
  return schema
}

/** Every `$defs` name a schema points to, directly or through the definitions it points to. */
const reachable = (root: unknown, defs: Readonly<Record<string, unknown>>): Set<string> => {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item)
      return
    }
    if (!isNode(node)) return
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const name = pointedName(value)
        if (name !== undefined && !seen.has(name) && Object.hasOwn(defs, name)) {
          seen.add(name)
          visit(defs[name])
        }
      } else {
        visit(value)
      }
    }
  }
  visit(root)
  return seen
}

/** A JSON Schema 2020-12 object whose root is `type: "object"` (as MCP requires of tool schemas). */
export const objectSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): Record<string, unknown> => {
  const ast = schema.ast
  if (AST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return { type: "object", properties: {} }
  }
  const generated = JSONSchema.make(schema, { target: "jsonSchema2020-12" }) as unknown as Node
  const { $schema: _, $defs: rawDefs, ...rawRoot } = generated
  const defined = isNode(rawDefs) ? rawDefs : {}
  const names = safeNames(Object.keys(defined))
  const defs: Node = {}
  for (const [name, def] of Object.entries(defined)) defs[names.get(name) ?? name] = rewrite(def, names)
  let root = rewrite(rawRoot, names) as Node
  // A root `$ref` (to a definition that may itself be a `$ref`) is inlined: tool schemas are objects at the root.
  for (let hops = 0; typeof root.$ref === "string" && hops <= Object.keys(defs).length; hops++) {
    const name = pointedName(root.$ref)
    const target = name === undefined ? undefined : defs[name]
    if (!isNode(target)) break
    const { $ref: _ref, ...siblings } = root
    root = { ...siblings, ...target }
  }
  if (root.type === undefined) root = { type: "object", ...root }
  const used = reachable(root, defs)
  if (used.size === 0) return root
  return { ...root, $defs: Object.fromEntries(Object.entries(defs).filter(([name]) => used.has(name))) }
}
