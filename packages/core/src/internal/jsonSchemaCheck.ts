/**
 * A small JSON Schema checker for validating a tool's `structuredContent` against its
 * `outputSchema` on the client: the keywords tool schemas use (type, properties, required,
 * additionalProperties, prefixItems, items, enum, const, anyOf/oneOf/allOf/not, numeric and length bounds,
 * local `$ref`s). Unknown keywords are ignored, as JSON Schema says.
 */

type Json = unknown
type SchemaObject = Record<string, unknown>

const typeOf = (v: Json): string => {
  if (v === null) return "null"
  if (Array.isArray(v)) return "array"
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number"
  return typeof v
}

const matchesType = (v: Json, t: unknown): boolean => {
  const actual = typeOf(v)
  if (Array.isArray(t)) return t.some((x) => matchesType(v, x))
  return t === actual || (t === "number" && actual === "integer")
}

const equal = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The first problem found checking `value` against `schema`, or undefined when it conforms. */
export const check = (schema: unknown, value: Json, root: unknown = schema, path = "$"): string | undefined => {
  if (schema === true || schema === undefined) return undefined
  if (schema === false) return `${path}: no value is allowed`
  if (typeof schema !== "object" || schema === null) return undefined
  const s = schema as SchemaObject
  if (typeof s.$ref === "string") {
    const target = resolve(root, s.$ref)
    if (target === undefined) return undefined
    const problem = check(target, value, root, path)
    if (problem !== undefined) return problem
  }
  if (s.type !== undefined && !matchesType(value, s.type)) {
    return `${path}: expected ${JSON.stringify(s.type)}, got ${typeOf(value)}`
  }
  if (s.const !== undefined && !equal(s.const, value)) return `${path}: expected ${JSON.stringify(s.const)}`
  if (Array.isArray(s.enum) && !s.enum.some((e) => equal(e, value))) {
    return `${path}: not one of ${JSON.stringify(s.enum)}`
  }
  if (Array.isArray(s.allOf)) {
    for (const sub of s.allOf) {
      const p = check(sub, value, root, path)
      if (p !== undefined) return p
    }
  }
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => check(sub, value, root, path) === undefined)) {
    return `${path}: matches none of anyOf`
  }
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub) => check(sub, value, root, path) === undefined).length !== 1) {
    return `${path}: does not match exactly one of oneOf`
  }
  if (s.not !== undefined && check(s.not, value, root, path) === undefined) return `${path}: matches "not"`
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return `${path}: below minimum ${s.minimum}`
    if (typeof s.maximum === "number" && value > s.maximum) return `${path}: above maximum ${s.maximum}`
    if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) {
      return `${path}: not above ${s.exclusiveMinimum}`
    }
    if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum) {
      return `${path}: not below ${s.exclusiveMaximum}`
    }
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) return `${path}: shorter than ${s.minLength}`
    if (typeof s.maxLength === "number" && value.length > s.maxLength) return `${path}: longer than ${s.maxLength}`
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) {
      return `${path}: does not match ${s.pattern}`
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) return `${path}: fewer than ${s.minItems} items`
    if (typeof s.maxItems === "number" && value.length > s.maxItems) return `${path}: more than ${s.maxItems} items`
    // 2020-12: `prefixItems` checks the first elements, `items` the ones after them (draft-07's array form is skipped).
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : []
    for (let i = 0; i < Math.min(prefix.length, value.length); i++) {
      const p = check(prefix[i], value[i], root, `${path}[${i}]`)
      if (p !== undefined) return p
    }
    if (s.items !== undefined && !Array.isArray(s.items)) {
      for (let i = prefix.length; i < value.length; i++) {
        const p = check(s.items, value[i], root, `${path}[${i}]`)
        if (p !== undefined) return p
      }
    }
  }
  if (typeOf(value) === "object") {
    const obj = value as Record<string, Json>
    if (Array.isArray(s.required)) {
      for (const k of s.required) if (typeof k === "string" && !(k in obj)) return `${path}: missing required "${k}"`
    }
    const props = (s.properties ?? {}) as Record<string, unknown>
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) {
        const p = check(props[k], v, root, `${path}.${k}`)
        if (p !== undefined) return p
      } else if (s.additionalProperties !== undefined) {
        const p = check(s.additionalProperties, v, root, `${path}.${k}`)
        if (p !== undefined) return s.additionalProperties === false ? `${path}: unexpected property "${k}"` : p
      }
    }
  }
  return undefined
}

const resolve = (root: unknown, ref: string): unknown => {
  if (!ref.startsWith("#")) return undefined
  let cur: unknown = root
  for (const raw of ref.slice(1).split("/").filter((p) => p !== "")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof cur !== "object" || cur === null) return undefined
    cur = (cur as Record<string, unknown>)[key]
  }
  return cur
}
