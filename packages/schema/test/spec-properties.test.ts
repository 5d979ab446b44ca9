import { Codec, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import Ajv from "ajv"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import type * as Schema from "effect/Schema"
import { readSpecJson } from "./spec.js"

const RUNS = 200

const validatorFor = (revision: string) => {
  const document = readSpecJson(revision, "schema.json")
  const is2020 = String(document.$schema).includes("2020-12")
  const ajv = is2020 ? new Ajv2020.default({ strict: false, allErrors: false }) : new Ajv.default({ strict: false })
  addFormats.default(ajv)
  ajv.addSchema(document, "mcp")
  const defs = (is2020 ? document.$defs : document.definitions) as Record<string, unknown>
  const pointer = is2020 ? "$defs" : "definitions"
  return { names: Object.keys(defs).sort(), validate: (name: string) => ajv.getSchema(`mcp#/${pointer}/${name}`)! }
}

const sample = (schema: Schema.Schema<unknown, unknown, never>) =>
  FastCheck.sample(Arbitrary.make(schema), { numRuns: RUNS, seed: 42 })

const checkType = (revision: Revision.Revision, name: string, validate: (name: string) => any): string | undefined => {
  const check = validate(name)
  if (Codec.schemaOf(revision, name) === undefined) return `${name} has no schema for ${revision}`
  const domain = Codec.schemaOf("domain", name)!
  // Values of the superset first; where the superset is much wider than this revision (an old revision's
  // narrower unions), generate from the revision's own schema instead.
  let encoded = sample(domain).map((v) => Codec.encode(revision, name, v)).filter(Either.isRight).map((e) => e.right)
  if (encoded.length < RUNS / 2) {
    encoded = sample(Codec.schemaOf(revision, name)!).map((v) => Codec.encode(revision, name, v)).filter(Either.isRight)
      .map((e) => e.right)
  }
  if (encoded.length < RUNS / 2) return `${name}: only ${encoded.length} of ${RUNS} values encode for ${revision}`
  for (const value of encoded) {
    const json = JSON.parse(JSON.stringify(value))
    if (!check(json)) return `${name} ${JSON.stringify(json).slice(0, 400)}\n${JSON.stringify(check.errors)}`
    const back = Codec.decode(revision, name, json)
    if (Either.isLeft(back)) return `${name} does not decode back: ${Codec.describe(back.left)}`
  }
  return undefined
}

// One test per revision (each checks every type the revision defines), so that the runner is not flooded
// with hundreds of tiny synchronous tests.
describe("what we encode validates against the official schema", () => {
  for (const revision of Revision.all) {
    it(`revision ${revision}: every type, ${RUNS} values each`, async () => {
      const { names, validate } = validatorFor(revision)
      expect(names.length).toBeGreaterThan(50)
      const problems: Array<string> = []
      for (const name of names) {
        const problem = checkType(revision, name, validate)
        if (problem !== undefined) problems.push(problem)
        // Let the worker answer the runner between types.
        await new Promise((resolve) => setImmediate(resolve))
      }
      expect(problems).toEqual([])
    }, 600_000)
  }
})
