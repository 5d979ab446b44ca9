/**
 * Compiled validity checks. `guard(ast)` answers what `Schema.is` answers for a type-side AST, but as a
 * plain predicate compiled once per AST node: no `Either`, no issue objects and no option merging per
 * node, which is most of what `Schema.is` costs on the hot path.
 *
 * It is sound: it never accepts a value `Schema.is` rejects. Nodes it does not model (declarations,
 * template literals, tuples with optional elements, non-string index keys, parse-option annotations)
 * are checked by `Schema.is` itself, so it never rejects a value `Schema.is` accepts either.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** A validity check. */
export type Guard = (u: unknown) => boolean

const cache = new WeakMap<AST.AST, Guard>()

/** The options `Schema.is` parses with. */
const isOptions: AST.ParseOptions = { exact: true }

const always: Guard = () => true
const never: Guard = () => false
const isString: Guard = (u) => typeof u === "string"
const isNumber: Guard = (u) => typeof u === "number"
const isBoolean: Guard = (u) => typeof u === "boolean"
const isUndefined: Guard = (u) => u === undefined
const isNotNullable: Guard = (u) => u !== null && u !== undefined
const hasOwn = Object.prototype.hasOwnProperty

const effectIs = (ast: AST.AST): Guard => Schema.is(Schema.make(ast))

/** Annotations that change how Effect parses a node: such nodes are left to Effect. */
const changesParsing = (ast: AST.AST): boolean =>
  ast.annotations[AST.ParseOptionsAnnotationId] !== undefined ||
  ast.annotations[AST.DecodingFallbackAnnotationId] !== undefined

/** Whether a property's type is a literal (or a union of literals): cheap and discriminating, so checked first. */
const isLiteralLike = (ast: AST.AST): boolean =>
  AST.isLiteral(ast) || (AST.isUnion(ast) && ast.types.every(AST.isLiteral))

const typeLiteral = (ast: AST.TypeLiteral): Guard => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return isNotNullable
  if (ast.indexSignatures.some((is) => is.parameter._tag !== "StringKeyword")) return effectIs(ast)
  const props = ast.propertySignatures
    .map((ps) => ({ name: ps.name, optional: ps.isOptional, check: guard(ps.type), first: isLiteralLike(ps.type) }))
    .sort((a, b) => Number(b.first) - Number(a.first))
  const names = props.map((p) => p.name)
  const optional = props.map((p) => p.optional)
  const checks = props.map((p) => p.check)
  const n = props.length
  // Every key, declared or not, must also satisfy every index signature (as in Effect's parser).
  const indexChecks = ast.indexSignatures.map((is) => guard(is.type)).filter((g) => g !== always)
  const m = indexChecks.length
  return (u) => {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return false
    const o = u as Record<PropertyKey, unknown>
    for (let i = 0; i < n; i++) {
      const name = names[i]!
      if (hasOwn.call(o, name)) {
        if (!checks[i]!(o[name])) return false
      } else if (!optional[i]) return false
    }
    if (m > 0) {
      for (const key of Object.keys(o)) {
        const v = o[key]
        for (let j = 0; j < m; j++) if (!indexChecks[j]!(v)) return false
      }
    }
    return true
  }
}

const tupleType = (ast: AST.TupleType): Guard => {
  if (ast.elements.length === 0 && ast.rest.length === 1) {
    const item = guard(ast.rest[0]!.type)
    if (item === always) return Array.isArray
    return (u) => {
      if (!Array.isArray(u)) return false
      for (let i = 0; i < u.length; i++) if (!item(u[i])) return false
      return true
    }
  }
  if (ast.rest.length === 0 && ast.elements.every((e) => !e.isOptional)) {
    const items = ast.elements.map((e) => guard(e.type))
    return (u) => {
      if (!Array.isArray(u) || u.length !== items.length) return false
      for (let i = 0; i < items.length; i++) if (!items[i]!(u[i])) return false
      return true
    }
  }
  return effectIs(ast)
}

const build = (ast: AST.AST): Guard => {
  if (changesParsing(ast)) return effectIs(ast)
  switch (ast._tag) {
    case "StringKeyword":
      return isString
    case "NumberKeyword":
      return isNumber
    case "BooleanKeyword":
      return isBoolean
    case "UnknownKeyword":
    case "AnyKeyword":
      return always
    case "NeverKeyword":
      return never
    case "UndefinedKeyword":
    case "VoidKeyword":
      return isUndefined
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Enums": {
      const values = ast.enums.map(([, v]) => v)
      return (u) => values.includes(u as string | number)
    }
    case "Refinement": {
      const from = guard(ast.from)
      return (u) => from(u) && Option.isNone(ast.filter(u, isOptions, ast))
    }
    case "Union": {
      const members = ast.types.map(guard)
      if (members.includes(always)) return always
      return (u) => {
        for (let i = 0; i < members.length; i++) if (members[i]!(u)) return true
        return false
      }
    }
    case "TypeLiteral":
      return typeLiteral(ast)
    case "TupleType":
      return tupleType(ast)
    case "Suspend": {
      let inner: Guard | undefined
      return (u) => (inner ??= guard(ast.f()))(u)
    }
    default:
      return effectIs(ast)
  }
}

/** The compiled check of a type-side AST (use `AST.typeAST` first): true exactly when `Schema.is` is. */
export const guard = (ast: AST.AST): Guard => {
  let g = cache.get(ast)
  if (g === undefined) {
    g = build(ast)
    cache.set(ast, g)
  }
  return g
}
