/**
 * The compiled guards behind the codecs' fast path answer exactly what `Schema.is` answers: for every type of
 * the domain and of every revision, and for the JSON-RPC envelope, over valid values (generated from the
 * type's own schema), near misses (values of the wider domain, and single-point mutations of both) and garbage.
 * A guard that accepted what Effect rejects would let invalid input through the codecs unchanged.
 */
import { Codec, Json, JsonRpc, Mcp, Revision, Revisions } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { guard } from "../src/internal/guard.js"

type AnySchema = Schema.Schema<unknown, unknown, never>

const sample = <A>(arbitrary: FastCheck.Arbitrary<A>, numRuns: number) =>
  FastCheck.sample(arbitrary, { numRuns, seed: 7 })

const valuesOf = (schema: AnySchema | undefined, numRuns: number): Array<unknown> =>
  schema === undefined ? [] : sample(Arbitrary.make(schema), numRuns)

/** Every path into a JSON-like value (the root is `[]`). */
const pathsOf = (v: unknown, at: Array<string> = [], out: Array<Array<string>> = []): Array<Array<string>> => {
  out.push(at)
  if (typeof v === "object" && v !== null) { for (const k of Object.keys(v)) pathsOf((v as never)[k], [...at, k], out) }
  return out
}

/** A copy of `v` with one point replaced by `replacement` (or, for an object key, deleted). */
const mutate = (v: unknown, pick: number, replacement: unknown, drop: boolean): unknown => {
  const paths = pathsOf(v)
  const path = paths[pick % paths.length]!
  if (path.length === 0) return replacement
  const copy = structuredClone(v) as Record<string, unknown>
  let parent = copy
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>
  const last = path[path.length - 1]!
  if (drop && !Array.isArray(parent)) delete parent[last]
  else parent[last] = replacement
  return copy
}

const mutations = FastCheck.tuple(FastCheck.nat(), FastCheck.anything({ maxDepth: 1 }), FastCheck.boolean())
const garbage = sample(FastCheck.anything({ maxDepth: 2, withNullPrototype: true }), 20)

/** Checks that the compiled guard of `schema` agrees with `Schema.is` on every candidate. */
const agree = (label: string, schema: AnySchema, near: ReadonlyArray<unknown>, valid: ReadonlyArray<unknown>) => {
  const compiled = guard(AST.typeAST(schema.ast))
  const reference = Schema.is(schema)
  const base = [...valid, ...near]
  const mutated = base.length === 0 ?
    [] :
    sample(mutations, 40).map(([pick, replacement, drop]) => mutate(base[pick % base.length], pick, replacement, drop))
  const counts = { accepted: 0, rejected: 0 }
  for (const u of [...base, ...mutated, ...garbage]) {
    const expected = reference(u)
    if (compiled(u) !== expected) {
      expect.fail(`${label}: the guard says ${!expected} where Schema.is says ${expected} for ${JSON.stringify(u)}`)
    }
    counts[expected ? "accepted" : "rejected"]++
  }
  return counts
}

const sources: ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>]> = [
  ["domain", Mcp.definitions],
  ...Revision.all.map((r) => [r, Revisions.byRevision[r]] as const)
]

for (const [source, definitions] of sources) {
  describe(`the compiled guards of ${source} agree with Schema.is`, () => {
    for (const name of Object.keys(definitions).sort()) {
      it(name, () => {
        const schema = definitions[name] as AnySchema
        const valid = valuesOf(schema, 20)
        const near = source === "domain" ? [] : valuesOf(Codec.schemaOf("domain", name), 30)
        const counts = agree(`${source} ${name}`, schema, near, valid)
        expect(counts.accepted, `${name}: no candidate is valid`).toBeGreaterThan(0)
        expect(counts.rejected, `${name}: no candidate is invalid`).toBeGreaterThan(0)
      })
    }
  })
}

describe("the compiled guards of the envelope and JSON agree with Schema.is", () => {
  const schemas: ReadonlyArray<readonly [string, AnySchema]> = [
    ["Request", JsonRpc.Request as AnySchema],
    ["Notification", JsonRpc.Notification as AnySchema],
    ["SuccessResponse", JsonRpc.SuccessResponse as AnySchema],
    ["ErrorResponse", JsonRpc.ErrorResponse as AnySchema],
    ["Message", JsonRpc.Message as AnySchema],
    ["JsonValue", Json.JsonValue as AnySchema],
    ["JsonObject", Json.JsonObject as AnySchema],
    ["JsonArray", Json.JsonArray as AnySchema]
  ]
  // The envelope schemas forbid keys (`Schema.Never`), which Arbitrary cannot generate: use the official ones.
  const messages = ["JSONRPCRequest", "JSONRPCNotification", "JSONRPCResultResponse", "JSONRPCErrorResponse"]
    .flatMap((name) => valuesOf(Codec.schemaOf("2026-07-28", name), 20))
  for (const [name, schema] of schemas) {
    it(name, () => {
      const counts = agree(name, schema, messages, name.startsWith("Json") ? valuesOf(schema, 30) : [])
      expect(counts.accepted).toBeGreaterThan(0)
      expect(counts.rejected).toBeGreaterThan(0)
    })
  }
})
