/**
 * The `requestedSchema` of a typed elicitation: an Effect Schema's JSON Schema (Effect's own generator, through
 * `objectSchema`) checked against what an elicitation form allows and reshaped into it. Every property must be a
 * string (formats `email`, `uri`, `date`, `date-time`; `minLength`/`maxLength`), a number or an integer
 * (`minimum`/`maximum`), a boolean, an enum of strings (titled when each member has a title), or an array of such an
 * enum (a multi-select); each may carry a `title`, a `description` and a `default`. Keywords a form cannot carry
 * (`pattern`, `exclusiveMinimum`, ...) are left out: the answer is decoded with the whole schema, which still
 * enforces them. Anything else (a nested object, a number enum, a union of kinds) is refused with a reason.
 *
 * Built once per schema (a WeakMap), never per call.
 */
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import { objectSchema } from "./jsonSchema.js"

type Node = Record<string, unknown>

const isNode = (u: unknown): u is Node => typeof u === "object" && u !== null && !Array.isArray(u)

/** The formats an elicitation string may declare. */
export const formats: ReadonlySet<string> = new Set(["email", "uri", "date", "date-time"])

/** The requested schema of an elicitation form: a flat object of primitive fields. */
export interface RequestedSchema {
  readonly type: "object"
  readonly properties: Readonly<Record<string, Node>>
  readonly required?: ReadonlyArray<string>
}

const pick = (node: Node, keys: ReadonlyArray<string>): Node => {
  const out: Node = {}
  for (const key of keys) if (node[key] !== undefined) out[key] = node[key]
  return out
}

const isStringList = (u: unknown): u is ReadonlyArray<string> =>
  Array.isArray(u) && u.length > 0 && u.every((v) => typeof v === "string")

/** A node with its `$ref` (to the root's `$defs`, possibly chained) inlined. */
const resolve = (node: Node, defs: Node): Node => {
  let current = node
  for (let hops = 0; typeof current.$ref === "string" && hops <= Object.keys(defs).length; hops++) {
    const target = defs[current.$ref.slice("#/$defs/".length)]
    if (!isNode(target)) return current
    const { $ref: _, ...siblings } = current
    // The outer node's own annotations (the property's title, say) win over the definition's.
    current = { ...target, ...siblings }
  }
  return current
}

/** The members of a string enum: `enum`, or an `anyOf` of single-valued string enums (titled when they are). */
const enumMembers = (
  node: Node,
  defs: Node
): ReadonlyArray<{ readonly value: string; readonly title?: string }> | undefined => {
  if (isStringList(node.enum)) return node.enum.map((value) => ({ value }))
  if (!Array.isArray(node.anyOf)) return undefined
  const members: Array<{ readonly value: string; readonly title?: string }> = []
  for (const raw of node.anyOf) {
    if (!isNode(raw)) return undefined
    const member = resolve(raw, defs)
    if (isStringList(member.enum)) {
      for (const value of member.enum) {
        members.push(
          member.enum.length === 1 && typeof member.title === "string" ? { value, title: member.title } : {
            value
          }
        )
      }
    } else if (typeof member.const === "string") {
      members.push(
        typeof member.title === "string" ? { value: member.const, title: member.title } : {
          value: member.const
        }
      )
    } else {
      return undefined
    }
  }
  return members.length > 0 ? members : undefined
}

const annotations = ["title", "description"] as const

/** One property as an elicitation field, or why it cannot be one. */
const field = (name: string, raw: Node, defs: Node): Either.Either<Node, string> => {
  const node = resolve(raw, defs)
  const base = pick(node, annotations)
  const members = enumMembers(node, defs)
  if (members !== undefined) {
    const titled = members.every((m) => m.title !== undefined)
    const def = typeof node.default === "string" ? { default: node.default } : {}
    return Either.right(
      titled
        ? { type: "string", ...base, oneOf: members.map((m) => ({ const: m.value, title: m.title })), ...def }
        : { type: "string", ...base, enum: members.map((m) => m.value), ...def }
    )
  }
  if (node.enum !== undefined || node.const !== undefined || node.anyOf !== undefined) {
    return Either.left(`field ${name}: an enum in a form has strings for members, and nothing else`)
  }
  switch (node.type) {
    case "string": {
      if (node.format !== undefined && !(typeof node.format === "string" && formats.has(node.format))) {
        return Either.left(`field ${name}: the format ${JSON.stringify(node.format)} is not one a form allows`)
      }
      const def = typeof node.default === "string" ? { default: node.default } : {}
      return Either.right({ type: "string", ...base, ...pick(node, ["format", "minLength", "maxLength"]), ...def })
    }
    case "number":
    case "integer": {
      const def = typeof node.default === "number" ? { default: node.default } : {}
      return Either.right({ type: node.type, ...base, ...pick(node, ["minimum", "maximum"]), ...def })
    }
    case "boolean": {
      const def = typeof node.default === "boolean" ? { default: node.default } : {}
      return Either.right({ type: "boolean", ...base, ...def })
    }
    case "array": {
      const items = isNode(node.items) ? enumMembers(resolve(node.items, defs), defs) : undefined
      if (items === undefined) {
        return Either.left(`field ${name}: an array in a form must be of string enum members (a multi-select)`)
      }
      const titled = items.every((m) => m.title !== undefined)
      const def = isStringList(node.default) ? { default: node.default } : {}
      return Either.right({
        type: "array",
        ...base,
        ...pick(node, ["minItems", "maxItems"]),
        items: titled
          ? { anyOf: items.map((m) => ({ const: m.value, title: m.title })) }
          : { type: "string", enum: items.map((m) => m.value) },
        ...def
      })
    }
    default:
      return Either.left(
        `field ${name}: a form field is a string, a number, an integer, a boolean or an enum of strings`
      )
  }
}

const compiled = new WeakMap<object, Either.Either<RequestedSchema, string>>()

/** The requested schema of a form schema, or why the schema cannot be a form (cached per schema). */
export const requestedSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): Either.Either<RequestedSchema, string> => {
  const known = compiled.get(schema)
  if (known !== undefined) return known
  const made = Either.flatMap(
    Either.try({
      try: () => objectSchema(schema),
      catch: (e) => `the schema has no JSON Schema: ${e instanceof Error ? e.message : String(e)}`
    }),
    (root) => {
      if (root.type !== "object" || !isNode(root.properties)) return Either.left("a form is an object of fields")
      if (root.additionalProperties !== undefined && root.additionalProperties !== false) {
        return Either.left("a form has named fields only (no index signature)")
      }
      const defs = isNode(root.$defs) ? root.$defs : {}
      const properties: Record<string, Node> = {}
      for (const [name, raw] of Object.entries(root.properties)) {
        const converted = isNode(raw) ? field(name, raw, defs) : Either.left(`field ${name}: not a schema`)
        if (Either.isLeft(converted)) return Either.left(converted.left)
        properties[name] = converted.right
      }
      const required = isStringList(root.required) ? root.required : []
      return Either.right<RequestedSchema>({
        type: "object",
        properties,
        ...(required.length > 0 ? { required } : {})
      })
    }
  )
  compiled.set(schema, made)
  return made
}
