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

for (const revision of Revision.all) {
  describe(`revision ${revision}: what we encode validates against the official schema`, () => {
    const { names, validate } = validatorFor(revision)
    for (const name of names) {
      it(name, () => {
        const check = validate(name)
        const own = Codec.schemaOf(revision, name)
        expect(own, `${name} has no schema for ${revision}`).toBeDefined()
        const domain = Codec.schemaOf("domain", name)!
        // Values of the superset first; where the superset is much wider than this revision (an old revision's
        // narrower unions), generate from the revision's own schema instead.
        let values = sample(domain)
        let encoded = values.map((v) => Codec.encode(revision, name, v)).filter(Either.isRight).map((e) => e.right)
        if (encoded.length < RUNS / 2) {
          values = sample(Codec.schemaOf(revision, name)!)
          encoded = values.map((v) => Codec.encode(revision, name, v)).filter(Either.isRight).map((e) => e.right)
        }
        expect(encoded.length, `${name}: too few values encode for ${revision}`).toBeGreaterThanOrEqual(RUNS / 2)
        for (const value of encoded) {
          const json = JSON.parse(JSON.stringify(value))
          if (!check(json)) {
            expect.fail(`${name} ${JSON.stringify(json).slice(0, 400)}\n${JSON.stringify(check.errors)}`)
          }
          const back = Codec.decode(revision, name, json)
          if (Either.isLeft(back)) expect.fail(`${name} does not decode back: ${Codec.describe(back.left)}`)
        }
      })
    }
  })
}
