/**
 * Fast paths for the per-revision codecs. Every transformation in the generated schemas is a
 * `Formats.Foreign` key (identity on decode, dropped on encode), so:
 *  - decoding a valid value is validating it and returning it as it is (unknown keys preserved);
 *  - encoding a valid domain value is validating it and dropping the foreign keys, found by a
 *    projector compiled once per schema from its AST.
 * Invalid input still goes through Effect's parser, for its error message.
 */
import * as AST from "effect/SchemaAST"
import { isRecord } from "../Json.js"
import { guard } from "./guard.js"

type Project = (value: unknown) => unknown

const identity: Project = (v) => v

const cache = new WeakMap<AST.AST, Project>()

const hasOwn = (value: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(value, key)

/**
 * Projects an object by visiting only what can change: its foreign keys (dropped), its fields whose projector is
 * not the identity, and, when the index signature's projector is not the identity, the other keys. A value with
 * none of them present comes back as it is, at the cost of a few own-property checks.
 */
const objectProjector = (
  fields: ReadonlyArray<AST.PropertySignature>,
  indexSignatures: ReadonlyArray<AST.IndexSignature>,
  foreign: ReadonlySet<PropertyKey>
): Project => {
  const byKey = new Map<PropertyKey, Project>()
  for (const ps of fields) byKey.set(ps.name, projector(ps.type))
  const index = indexSignatures.length > 0 ? projector(indexSignatures[0]!.type) : undefined
  const foreignKeys = [...foreign]
  const visited = [...byKey].filter(([key, p]) => p !== identity && !foreign.has(key))
  const visitsIndex = index !== undefined && index !== identity
  if (foreignKeys.length === 0 && visited.length === 0 && !visitsIndex) return identity
  return (value) => {
    if (!isRecord(value)) return value
    let out: Record<string, unknown> | undefined
    for (const key of foreignKeys) {
      if (!hasOwn(value, key)) continue
      out ??= { ...value }
      delete out[key as string]
    }
    for (const [key, p] of visited) {
      if (!hasOwn(value, key)) continue
      const v = value[key as string]
      const projected = p(v)
      if (projected !== v) {
        out ??= { ...value }
        out[key as string] = projected
      }
    }
    if (visitsIndex) {
      for (const key in value) {
        if (byKey.has(key) || foreign.has(key)) continue
        const v = value[key]
        const projected = index(v)
        if (projected !== v) {
          out ??= { ...value }
          out[key] = projected
        }
      }
    }
    return out ?? value
  }
}

const build = (ast: AST.AST): Project => {
  switch (ast._tag) {
    case "Transformation": {
      if (AST.isTypeLiteralTransformation(ast.transformation) && AST.isTypeLiteral(ast.from)) {
        const foreign = new Set(ast.transformation.propertySignatureTransformations.map((t) => t.from))
        return objectProjector(ast.from.propertySignatures, ast.from.indexSignatures, foreign)
      }
      return identity
    }
    case "TypeLiteral":
      return objectProjector(ast.propertySignatures, ast.indexSignatures, new Set())
    case "Union": {
      const members = ast.types.map((m) => ({ is: guard(AST.typeAST(m)), project: projector(m) }))
      if (members.every((m) => m.project === identity)) return identity
      return (value) => {
        for (const m of members) if (m.is(value)) return m.project(value)
        return value
      }
    }
    case "TupleType": {
      const rest = ast.rest[0]
      if (ast.elements.length > 0 || rest === undefined) return identity
      const item = projector(rest.type)
      if (item === identity) return identity
      return (value) => {
        if (!Array.isArray(value)) return value
        let out: Array<unknown> | undefined
        for (let i = 0; i < value.length; i++) {
          const projected = item(value[i])
          if (projected !== value[i]) {
            out ??= [...value]
            out[i] = projected
          }
        }
        return out ?? value
      }
    }
    case "Refinement":
      return projector(ast.from)
    case "Suspend": {
      let inner: Project | undefined
      return (value) => (inner ??= projector(ast.f()))(value)
    }
    default:
      return identity
  }
}

/** The projector of a schema's AST: drops foreign keys, keeps everything else. */
export const projector = (ast: AST.AST): Project => {
  let p = cache.get(ast)
  if (p === undefined) {
    // Guard recursion through Suspend: a placeholder until built.
    cache.set(ast, (v) => cache.get(ast)!(v))
    p = build(ast)
    cache.set(ast, p)
  }
  return p
}
