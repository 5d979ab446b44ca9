/**
 * Property tests against the official JSON Schemas: for every revision and every definition its schema.json
 * has, values generated from the domain schema (Effect's `Arbitrary` with fast-check, 200 a type) that encode for
 * the revision validate with ajv against that revision's definition of the same name, and decode back with the
 * revision's decoder to the same JSON. No type is excluded.
 *
 * Where the domain is legitimately much wider than a revision (fewer than half of its values can be expressed
 * there), the type is listed in `fromOwnSchema` with the reason: the domain values that do encode are still
 * checked, and 200 values generated from the revision's own schema must all encode and validate too.
 */
import { Codec, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import Ajv from "ajv"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import type * as Schema from "effect/Schema"
import { readCorrectedSchemaDocument } from "./spec.js"

const RUNS = 200

/** Why a type's domain values mostly cannot be expressed in a revision. */
const why = {
  content: "the domain's content blocks include kinds this revision lacks (audio, resource links, tool use/results)",
  methods: "the domain's union includes methods this revision lacks",
  structured: "the domain's structuredContent is any JSON; this revision requires an object",
  elicitation: "the domain's elicitation has the URL mode (no requestedSchema) and newer field kinds",
  enums: "the domain's EnumSchema includes the titled and multi-select variants of 2025-11-25",
  elicitationId: "elicitationId is optional in the domain (2026-07-28 makes it optional)",
  sampling: "the domain's sampling content is wider, and its requests may lack an id (2026-07-28 input requests)",
  meta: "2026-07-28 requests need _meta with protocolVersion and clientCapabilities; optional in the domain",
  json: "2026-07-28 capabilities are JSONObjects (no null, no fractions); the domain allows any JSON there",
  resultType: "2026-07-28 results need resultType; optional in the domain"
} as const

/**
 * Types whose values also come from the revision's own schema, because fewer than half of the domain's can be
 * expressed in that revision (by revision, with why). Every other type must encode at least half of its values.
 */
const fromOwnSchema: Readonly<Record<Revision.Revision, Readonly<Record<string, string>>>> = {
  "2024-11-05": {
    CallToolResult: why.content,
    CreateMessageRequest: why.content,
    CreateMessageResult: why.content,
    GetPromptResult: why.content,
    SamplingMessage: why.content,
    ServerRequest: why.methods
  },
  "2025-03-26": {
    CallToolResult: why.content,
    CreateMessageRequest: why.content,
    ServerRequest: why.methods
  },
  "2025-06-18": {
    CallToolResult: why.structured,
    CreateMessageRequest: why.content,
    ElicitRequest: why.elicitation,
    EnumSchema: why.enums,
    ServerRequest: why.methods
  },
  "2025-11-25": {
    CallToolResult: why.structured,
    CreateMessageRequest: why.sampling,
    CreateMessageRequestParams: why.sampling,
    ToolResultContent: why.structured,
    URLElicitationRequiredError: why.elicitationId
  },
  "2026-07-28": {
    CallToolRequest: why.meta,
    CallToolRequestParams: why.meta,
    ClientCapabilities: why.json,
    ClientNotification: why.methods,
    ClientRequest: why.meta,
    ClientResult: why.resultType,
    CompleteRequest: why.meta,
    CompleteRequestParams: why.meta,
    DiscoverRequest: why.meta,
    DiscoverResult: why.json,
    DiscoverResultResponse: why.json,
    GetPromptRequest: why.meta,
    GetPromptRequestParams: why.meta,
    InputResponseRequestParams: why.json,
    ListPromptsRequest: why.meta,
    ListResourceTemplatesRequest: why.meta,
    ListResourcesRequest: why.meta,
    ListToolsRequest: why.meta,
    MissingRequiredClientCapabilityError: why.json,
    PaginatedRequest: why.meta,
    PaginatedRequestParams: why.meta,
    ReadResourceRequest: why.meta,
    ReadResourceRequestParams: why.meta,
    RequestMetaObject: why.json,
    RequestParams: why.meta,
    ResourceRequestParams: why.meta,
    ServerCapabilities: why.json,
    SubscriptionsListenRequest: why.json,
    SubscriptionsListenRequestParams: why.json
  }
}

const validatorFor = (revision: Revision.Revision) => {
  const document = readCorrectedSchemaDocument(revision)
  const dialect = document.$schema.includes("2020-12")
    ? "2020-12"
    : document.$schema.includes("draft-07")
    ? "draft-07"
    : undefined
  if (dialect === undefined) throw new Error(`${revision}: unknown JSON Schema dialect ${document.$schema}`)
  const ajv = dialect === "2020-12" ? new Ajv2020.default({ strict: false }) : new Ajv.default({ strict: false })
  addFormats.default(ajv)
  ajv.addSchema(document, "mcp")
  const pointer = dialect === "2020-12" ? "$defs" : "definitions"
  const defs = (dialect === "2020-12" ? document.$defs : document.definitions) ?? {}
  return {
    names: Object.keys(defs).sort(),
    validator: (name: string) => ajv.compile({ $ref: `mcp#/${pointer}/${name}` })
  }
}

const sample = (schema: Schema.Schema<unknown, unknown, never>) =>
  FastCheck.sample(Arbitrary.make(schema), { numRuns: RUNS, seed: 42 })

/** The values that encode for `revision`, as the JSON that would go on the wire. */
const encodeAll = (revision: Revision.Revision, name: string, values: ReadonlyArray<unknown>) =>
  values.flatMap((v) => {
    const e = Codec.encode(revision, name, v)
    return Either.isRight(e) ? [JSON.parse(JSON.stringify(e.right)) as unknown] : []
  })

for (const revision of Revision.all) {
  describe(`${revision}: what we encode validates against the official schema`, () => {
    const { names, validator } = validatorFor(revision)
    const own = fromOwnSchema[revision]

    it("the types listed as generated from the revision's own schema exist in it", () => {
      for (const name of Object.keys(own)) expect(names, `${name} is not in ${revision}`).toContain(name)
    })

    for (const name of names) {
      it(name, () => {
        const check = validator(name)
        const revisionSchema = Codec.schemaOf(revision, name)
        const domainSchema = Codec.schemaOf("domain", name)
        expect(revisionSchema, `${name} has no schema for ${revision}`).toBeDefined()
        expect(domainSchema, `${name} has no domain schema`).toBeDefined()

        const verify = (source: string, encoded: ReadonlyArray<unknown>) => {
          for (const json of encoded) {
            if (!check(json)) {
              expect.fail(
                `${name} (${source}) encoded for ${revision} is invalid: ${JSON.stringify(json).slice(0, 600)}\n` +
                  JSON.stringify(check.errors)
              )
            }
            const back = Codec.decode(revision, name, json)
            if (Either.isLeft(back)) {
              expect.fail(`${name} (${source}) does not decode back: ${Codec.describe(back.left)}`)
            }
            expect(back.right).toEqual(json)
          }
        }

        const fromDomain = encodeAll(revision, name, sample(domainSchema!))
        verify("domain", fromDomain)
        if (own[name] === undefined) {
          expect(fromDomain.length, `${name}: fewer than half of the domain's values encode for ${revision}`)
            .toBeGreaterThanOrEqual(RUNS / 2)
        } else {
          const fromRevision = encodeAll(revision, name, sample(revisionSchema!))
          expect(fromRevision.length, `${name}: a value of ${revision}'s own schema does not encode`).toBe(RUNS)
          verify(revision, fromRevision)
        }
      })
    }
  })
}
