/**
 * Fast paths for the per-revision codecs. Every transformation in the generated schemas is a
 * `Formats.Foreign` key (identity on decode, dropped on encode), so:
 *  - decoding a valid value is validating it and returning it as it is (unknown keys preserved);
 *  - encoding a valid domain value is validating it and dropping the foreign keys, found by a
 *    projector compiled once per schema from its AST.
 * Invalid input still goes through Effect's parser, for its error message.
 */
import * as AST from "effect/SchemaAST"
import { guard } from "./guard.js"

type Project = (value: unknown) => unknown

const identity: Project = (v) => v

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const cache = new WeakMap<AST.AST, Project>()

const objectProjector = (
  fields: ReadonlyArray<AST.PropertySignature>,
  indexSignatures: ReadonlyArray<AST.IndexSignature>,
  foreign: ReadonlySet<PropertyKey>
): Project => {
  const byKey = new Map<PropertyKey, Project>()
  for (const ps of fields) byKey.set(ps.name, projector(ps.type))
  const index = indexSignatures.length > 0 ? projector(indexSignatures[0]!.type) : undefined
  const trivial = foreign.size === 0 && [...byKey.values()].every((p) => p === identity) &&
    (index === undefined || index === identity)
  if (trivial) return identity
  return (value) => {
    if (!isObject(value)) return value
    let out: Record<string, unknown> | undefined
    for (const key in value) {
      const v = value[key]
      if (foreign.has(key)) {
        out ??= { ...value }
        delete out[key]
        continue
      }
      const p = byKey.get(key) ?? index
      if (p === undefined || p === identity) continue
      const projected = p(v)
      if (projected !== v) {
        out ??= { ...value }
        out[key] = projected
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
