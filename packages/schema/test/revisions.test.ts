import { Codec, Revision, Revisions } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"

type AnyStruct = Schema.Struct<Schema.Struct.Fields>

describe("Revisions (each schema built when first read)", () => {
  it.each(Revision.all)("%s: every read of a definition, and every reference to it, is one schema", (revision) => {
    const definitions: Readonly<Record<string, unknown>> = Revisions.byRevision[revision]
    const request = definitions.CallToolRequest as AnyStruct
    expect(Schema.isSchema(request)).toBe(true)
    expect(definitions.CallToolRequest).toBe(request)
    expect(request.fields.params).toBe(definitions.CallToolRequestParams)
    expect(Codec.schemaOf(revision, "CallToolRequest")).toBe(request)
  })

  it("a revision's definitions list every type the module declares, and each is a schema", () => {
    const definitions: Readonly<Record<string, unknown>> = Revisions.V2025_11_25.definitions
    const names = Object.keys(definitions)
    expect(names.length).toBeGreaterThan(100)
    expect(names).toContain("Tool")
    for (const name of names) expect(Schema.isSchema(definitions[name]), name).toBe(true)
  })

  it("a revision's typed definition decodes as its schema says", () => {
    const decode = Schema.decodeUnknownSync(Revisions.V2025_11_25.definitions.CallToolRequestParams)
    const params: Revisions.V2025_11_25.CallToolRequestParams = decode({ name: "echo", arguments: { text: "hi" } })
    expect(params.name).toBe("echo")
    expect(() => decode({ arguments: {} })).toThrow(/name/)
  })
})
