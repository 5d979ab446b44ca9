/**
 * Tool schemas generated from Effect Schemas are JSON Schema 2020-12 that every client accepts: for a table of
 * Effect schemas, the tool's inputSchema and outputSchema compile under Ajv's 2020-12 mode (strict, with formats),
 * accept a good instance and reject a bad one, as the Effect schema does; a draft-07 Ajv set up as the official
 * SDK 1.x client sets up its own accepts the good instance too, and so does our client's output check. Structurally:
 * `type: "object"` at the root, no `$schema`, tuples as `prefixItems`, no draft-07 keywords, every `$ref` a
 * `#/$defs/...` pointer into the root's `$defs`, no definition left unreferenced.
 */
import { Tool } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import Ajv from "ajv"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { objectSchema } from "../src/internal/jsonSchema.js"
import { check } from "../src/internal/jsonSchemaCheck.js"

class Person extends Schema.Class<Person>("Person")({ name: Schema.String, age: Schema.Int }) {}

interface Category {
  readonly name: string
  readonly subcategories: ReadonlyArray<Category>
}
const Category = Schema.Struct({
  name: Schema.String,
  subcategories: Schema.Array(Schema.suspend((): Schema.Schema<Category> => Category))
}).annotations({ identifier: "Category" })

interface Tree {
  readonly value: number
  readonly children: ReadonlyArray<Tree>
}
const Tree: Schema.Schema<Tree> = Schema.Struct({
  value: Schema.Number,
  children: Schema.Array(Schema.suspend((): Schema.Schema<Tree> => Tree).annotations({ identifier: "Tree" }))
})

const Point = Schema.Struct({ x: Schema.Number, y: Schema.Number }).annotations({ identifier: "Point 2D/xy" })

enum Color {
  Red = "red",
  Green = "green",
  Count = 3
}

interface Case {
  readonly name: string
  readonly schema: Schema.Schema<any, any>
  readonly good: unknown
  readonly bad: unknown
  /** Ajv strict-mode lints this case does not meet: strictTuples (a tuple whose length is not fixed), strictTypes. */
  readonly lax?: { readonly strictTuples?: false; readonly strictTypes?: false }
  /** A draft-07 reader applies `items` to every element, so it rejects this good instance (see the docs). */
  readonly draft07Rejects?: true
}

const cases: ReadonlyArray<Case> = [
  {
    name: "struct",
    schema: Schema.Struct({ a: Schema.String, b: Schema.Number, c: Schema.Boolean }),
    good: { a: "x", b: 1, c: true },
    bad: { a: "x", b: "1", c: true }
  },
  {
    name: "optional",
    schema: Schema.Struct({ a: Schema.String, b: Schema.optional(Schema.Number) }),
    good: { a: "x" },
    bad: { b: 1 }
  },
  {
    name: "optional with a default",
    schema: Schema.Struct({ n: Schema.optionalWith(Schema.Number, { default: () => 1 }) }),
    good: {},
    bad: { n: "1" }
  },
  {
    name: "nullable",
    schema: Schema.Struct({ a: Schema.NullOr(Schema.String), b: Schema.optional(Schema.NullOr(Schema.Number)) }),
    good: { a: null, b: null },
    bad: { a: 1 }
  },
  {
    name: "tuple",
    schema: Schema.Struct({ pair: Schema.Tuple(Schema.String, Schema.Number) }),
    good: { pair: ["x", 1] },
    bad: { pair: ["x", 1, 2] }
  },
  {
    name: "tuple with an optional element",
    schema: Schema.Struct({ pair: Schema.Tuple(Schema.String, Schema.optionalElement(Schema.Number)) }),
    good: { pair: ["x"] },
    bad: { pair: ["x", "y"] },
    lax: { strictTuples: false }
  },
  {
    name: "tuple with a rest element",
    schema: Schema.Struct({ row: Schema.Tuple([Schema.String], Schema.Number) }),
    good: { row: ["x", 1, 2] },
    bad: { row: ["x", 1, "2"] },
    lax: { strictTuples: false },
    draft07Rejects: true
  },
  {
    name: "tuple with a rest element of the same type",
    schema: Schema.Struct({ row: Schema.Tuple([Schema.Number], Schema.Number) }),
    good: { row: [1, 2, 3] },
    bad: { row: [] }
  },
  {
    name: "array",
    schema: Schema.Struct({ xs: Schema.Array(Schema.Number), ne: Schema.NonEmptyArray(Schema.String) }),
    good: { xs: [], ne: ["a"] },
    bad: { xs: [], ne: [] },
    lax: { strictTuples: false }
  },
  {
    name: "record",
    schema: Schema.Struct({ counts: Schema.Record({ key: Schema.String, value: Schema.Number }) }),
    good: { counts: { a: 1, b: 2 } },
    bad: { counts: { a: "1" } }
  },
  {
    name: "record with template literal keys",
    schema: Schema.Struct({
      headers: Schema.Record({ key: Schema.TemplateLiteral("x-", Schema.String), value: Schema.String })
    }),
    good: { headers: { "x-a": "1" } },
    bad: { headers: { "x-a": 1 } }
  },
  {
    name: "literal union",
    schema: Schema.Struct({ mode: Schema.Literal("fast", "slow"), level: Schema.Literal(1, 2, 3) }),
    good: { mode: "fast", level: 2 },
    bad: { mode: "medium", level: 2 }
  },
  {
    name: "enums",
    schema: Schema.Struct({ color: Schema.Enums(Color) }),
    good: { color: 3 },
    bad: { color: "blue" }
  },
  {
    name: "nested structs",
    schema: Schema.Struct({
      user: Schema.Struct({ name: Schema.String, address: Schema.Struct({ city: Schema.String }) })
    }),
    good: { user: { name: "Ada", address: { city: "London" } } },
    bad: { user: { name: "Ada", address: {} } }
  },
  {
    name: "discriminated union of structs",
    schema: Schema.Struct({
      shape: Schema.Union(
        Schema.TaggedStruct("circle", { radius: Schema.Number }),
        Schema.TaggedStruct("square", { side: Schema.Number })
      )
    }),
    good: { shape: { _tag: "square", side: 2 } },
    bad: { shape: { _tag: "square", radius: 2 } }
  },
  {
    name: "a union at the root",
    schema: Schema.Union(
      Schema.Struct({ kind: Schema.Literal("a"), a: Schema.Number }),
      Schema.Struct({ kind: Schema.Literal("b"), b: Schema.String })
    ),
    good: { kind: "b", b: "x" },
    bad: { kind: "a", b: "x" }
  },
  {
    name: "Schema.Class at the root",
    schema: Person,
    good: { name: "Ada", age: 36 },
    bad: { name: "Ada", age: 36.5 }
  },
  {
    name: "Schema.Class inside, twice",
    schema: Schema.Struct({ author: Person, reviewer: Schema.optional(Person) }),
    good: { author: { name: "Ada", age: 36 }, reviewer: { name: "Alan", age: 41 } },
    bad: { author: { name: "Ada" } }
  },
  {
    name: "an identifier that is not a URI-safe name",
    schema: Schema.Struct({ from: Point, to: Point }),
    good: { from: { x: 0, y: 0 }, to: { x: 1, y: 1 } },
    bad: { from: { x: 0, y: 0 }, to: { x: 1 } }
  },
  {
    name: "recursive with an identifier, at the root",
    schema: Category,
    good: { name: "a", subcategories: [{ name: "b", subcategories: [] }] },
    bad: { name: "a", subcategories: [{ name: "b" }] }
  },
  {
    name: "recursive through Schema.suspend",
    schema: Tree,
    good: { value: 1, children: [{ value: 2, children: [{ value: 3, children: [] }] }] },
    bad: { value: 1, children: [{ value: 2, children: [{ value: "3", children: [] }] }] }
  },
  {
    name: "refinements: formats, patterns, lengths, bounds",
    schema: Schema.Struct({
      id: Schema.UUID,
      code: Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/)),
      name: Schema.String.pipe(Schema.minLength(2), Schema.maxLength(8)),
      nonEmpty: Schema.NonEmptyString,
      count: Schema.Int.pipe(Schema.between(1, 10)),
      ratio: Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1)),
      positive: Schema.Positive,
      tags: Schema.Array(Schema.String).pipe(Schema.maxItems(2))
    }),
    good: {
      id: "123e4567-e89b-12d3-a456-426614174000",
      code: "ABC",
      name: "Ada",
      nonEmpty: "x",
      count: 10,
      ratio: 1,
      positive: 0.5,
      tags: ["a"]
    },
    // `count` is a `$ref` to the Int definition beside `minimum`/`maximum`: valid 2020-12, but not typed where it is.
    lax: { strictTypes: false },
    bad: {
      id: "123e4567-e89b-12d3-a456-426614174000",
      code: "ABC",
      name: "Ada",
      nonEmpty: "x",
      count: 11,
      ratio: 1,
      positive: 0.5,
      tags: ["a"]
    }
  },
  {
    name: "a format from an annotation",
    schema: Schema.Struct({
      email: Schema.String.pipe(Schema.filter((s) => /^[^@\s]+@[^@\s]+$/.test(s), { jsonSchema: { format: "email" } }))
    }),
    good: { email: "ada@example.com" },
    bad: { email: "not an address" }
  },
  {
    name: "Schema.Date and transformations",
    schema: Schema.Struct({
      at: Schema.Date,
      n: Schema.NumberFromString,
      trimmed: Schema.Trim,
      json: Schema.parseJson(Schema.Struct({ a: Schema.Number }))
    }),
    good: { at: "2026-07-28T00:00:00.000Z", n: "12", trimmed: "x", json: "{\"a\":1}" },
    bad: { at: 1785196800000, n: "12", trimmed: "x", json: "{\"a\":1}" }
  },
  {
    name: "unknown values, plain and annotated",
    schema: Schema.Struct({
      a: Schema.Unknown,
      b: Schema.Unknown.annotations({ description: "anything" }),
      c: Schema.Any
    }),
    good: { a: 1, b: [2], c: null },
    bad: null
  }
]

const tool = (schema: Schema.Schema<any, any>): Tool.Tool =>
  Tool.make(
    Tool.define({ name: "t", input: schema, output: schema, handler: (value) => Effect.succeed(value) }),
    Context.empty()
  )

/** Ajv in 2020-12 mode, strict (but for the lints the case names), with the formats. */
const ajv2020 = (lax: Case["lax"]) => {
  const ajv = new Ajv2020.default({ strict: true, ...lax, allErrors: true })
  addFormats.default(ajv)
  return ajv
}

/** A draft-07 Ajv as the official SDK 1.x client makes its own (validation/ajv-provider.js). */
const sdk1Ajv = () => {
  const ajv = new Ajv.default({ strict: false, validateFormats: true, validateSchema: false, allErrors: true })
  addFormats.default(ajv)
  return ajv
}

/** Every `$ref` in a schema, with the path of the object that holds it. */
const refsOf = (node: unknown, path = "$"): Array<readonly [string, string]> => {
  if (Array.isArray(node)) return node.flatMap((item, i) => refsOf(item, `${path}[${i}]`))
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [[path, value] as const] : refsOf(value, `${path}.${key}`)
  )
}

/** Every key anywhere in a schema (property names included). */
const keysOf = (node: unknown): Array<string> => {
  if (Array.isArray(node)) return node.flatMap(keysOf)
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) => [key, ...keysOf(value)])
}

/** Every array-typed subschema's `items`. */
const itemsOf = (node: unknown): Array<unknown> => {
  if (Array.isArray(node)) return node.flatMap(itemsOf)
  if (typeof node !== "object" || node === null) return []
  const own = "items" in node ? [(node as { items: unknown }).items] : []
  return [...own, ...Object.values(node).flatMap(itemsOf)]
}

describe("tool schemas are JSON Schema 2020-12", () => {
  for (const c of cases) {
    describe(c.name, () => {
      const descriptor = tool(c.schema).descriptor
      const schemas = [["inputSchema", descriptor.inputSchema], ["outputSchema", descriptor.outputSchema]] as const

      it("the Effect schema agrees with the instances", () => {
        expect(Schema.decodeUnknownEither(c.schema)(c.good)._tag).toBe("Right")
        expect(Schema.decodeUnknownEither(c.schema)(c.bad)._tag).toBe("Left")
      })

      for (const [which, schema] of schemas) {
        it(`${which}: an object at the root, 2020-12 keywords only, local refs that resolve`, () => {
          expect(schema).toBeDefined()
          const json = schema as Record<string, unknown>
          expect(json.type).toBe("object")
          const keys = keysOf(json)
          for (const draft07 of ["$schema", "definitions", "additionalItems", "$id"]) {
            expect(keys).not.toContain(draft07)
          }
          for (const items of itemsOf(json)) expect(Array.isArray(items)).toBe(false)
          const defs = (json.$defs ?? {}) as Record<string, unknown>
          const pointed = new Set<string>()
          for (const [, ref] of refsOf(json)) {
            expect(ref).toMatch(/^#\/\$defs\/[A-Za-z0-9_.-]+$/)
            const name = ref.slice("#/$defs/".length)
            expect(Object.keys(defs)).toContain(name)
            pointed.add(name)
          }
          expect(Object.keys(defs).sort()).toEqual([...pointed].sort())
        })

        it(`${which}: compiles under Ajv 2020-12 (strict, formats); accepts the good instance, rejects the bad`, () => {
          const validate = ajv2020(c.lax).compile(schema as object)
          expect(validate(c.good), JSON.stringify(validate.errors)).toBe(true)
          expect(validate(c.bad)).toBe(false)
        })

        it(`${which}: a draft-07 Ajv set up as the SDK 1.x client's compiles it and accepts the good instance`, () => {
          const validate = sdk1Ajv().compile(schema as object)
          expect(validate(c.good), JSON.stringify(validate.errors)).toBe(c.draft07Rejects !== true)
        })

        it(`${which}: our client's output check accepts the good instance`, () => {
          expect(check(schema, c.good)).toBeUndefined()
        })
      }
    })
  }
})

describe("how tuples and refs come out", () => {
  it("a tuple is prefixItems closed by minItems and maxItems, with no items at all", () => {
    const json = objectSchema(Schema.Struct({ pair: Schema.Tuple(Schema.String, Schema.Number) }))
    expect(json.properties).toEqual({
      pair: { type: "array", minItems: 2, maxItems: 2, prefixItems: [{ type: "string" }, { type: "number" }] }
    })
  })

  it("a rest element is items after the prefixItems", () => {
    const json = objectSchema(Schema.Struct({ row: Schema.Tuple([Schema.String], Schema.Boolean) }))
    expect(json.properties).toEqual({
      row: { type: "array", minItems: 1, prefixItems: [{ type: "string" }], items: { type: "boolean" } }
    })
  })

  it("a draft-07 tuple from a jsonSchema annotation is rewritten as prefixItems", () => {
    const pair = Schema.Array(Schema.Unknown).annotations({
      jsonSchema: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false }
    })
    const json = objectSchema(Schema.Struct({ pair }))
    expect(json.properties).toEqual({
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], maxItems: 2 }
    })
  })

  it("a Schema.Class at the root is inlined; the definitions it uses stay in $defs", () => {
    const json = objectSchema(Person)
    expect(json).toMatchObject({
      type: "object",
      required: ["name", "age"],
      properties: { name: { type: "string" }, age: { $ref: "#/$defs/Int" } },
      $defs: { Int: { type: "integer" } }
    })
    expect(json).not.toHaveProperty("$ref")
    expect(Object.keys(json.$defs as object)).toEqual(["Int"])
  })

  it("a recursive schema at the root is inlined and keeps its own definition for the recursion", () => {
    const json = objectSchema(Category)
    expect(json).toMatchObject({
      type: "object",
      properties: { subcategories: { type: "array", items: { $ref: "#/$defs/Category" } } },
      $defs: { Category: { type: "object", required: ["name", "subcategories"] } }
    })
  })

  it("an identifier that needs escaping becomes a plain $defs name", () => {
    const json = objectSchema(Schema.Struct({ at: Point }))
    expect(json.properties).toEqual({ at: { $ref: "#/$defs/Point_2D_xy" } })
    expect(Object.keys(json.$defs as object)).toEqual(["Point_2D_xy"])
  })

  it("a property named like a keyword is a property, not a keyword", () => {
    const json = objectSchema(Schema.Struct({ $ref: Schema.String, $id: Schema.Number, items: Schema.Boolean }))
    expect(json.properties).toEqual({ $ref: { type: "string" }, $id: { type: "number" }, items: { type: "boolean" } })
    expect(json.required).toEqual(["$ref", "$id", "items"])
  })

  it("an empty input is a plain object schema", () => {
    expect(objectSchema(Tool.NoInput)).toEqual({ type: "object", properties: {} })
  })
})

describe("our client's output check reads prefixItems", () => {
  const row = { type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }
  it("checks the prefix against prefixItems and the rest against items", () => {
    expect(check(row, ["a", 1, 2])).toBeUndefined()
    expect(check(row, [1, 1])).toBe("$[0]: expected \"string\", got integer")
    expect(check(row, ["a", "b"])).toBe("$[1]: expected \"number\", got string")
  })
})
