/**
 * The domain's schemas (`Mcp.*`) are stand-ins built on first read (internal/deferred.ts), so that importing the
 * package builds none of them. A stand-in must be usable everywhere its schema is: as a field, a member, through its
 * own API (`fields`, `annotations`, `pipe`, `make`), by Effect's guards and JSON Schema, and under `in` and `keys`.
 */
import { Codec, Mcp } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { deferred } from "../src/internal/deferred.js"
import { lazily } from "../src/internal/lazily.js"

const tool = { name: "echo", inputSchema: { type: "object" } } as const

describe("deferred", () => {
  it("builds its value when it is first read, once", () => {
    let builds = 0
    const Point = deferred(lazily(() => {
      builds++
      return Schema.Struct({ x: Schema.Number })
    }))
    expect(builds).toBe(0)
    expect(Schema.isSchema(Point)).toBe(true)
    expect(Object.keys(Point.fields)).toEqual(["x"])
    expect(Schema.decodeUnknownSync(Point)({ x: 1 })).toEqual({ x: 1 })
    expect(builds).toBe(1)
  })

  it("stands in for a domain schema as a field, a member, and through its own API", () => {
    expect(typeof Mcp.Tool).toBe("function")
    expect(Schema.isSchema(Mcp.Tool)).toBe(true)
    expect("fields" in Mcp.Tool).toBe(true)
    expect(Object.keys(Mcp.Tool.fields)).toContain("inputSchema")
    expect(Reflect.ownKeys(Mcp.Tool)).toContain("fields")
    expect(Schema.is(Mcp.Tool)(tool)).toBe(true)
    expect(Schema.is(Mcp.Tool)({ name: 1 })).toBe(false)
    const Listed = Schema.Struct({ tools: Schema.Array(Mcp.Tool) })
    expect(Either.isRight(Schema.decodeUnknownEither(Listed)({ tools: [tool] }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(Schema.Union(Mcp.Tool, Mcp.Prompt))({ nope: true }))).toBe(true)
    const Named = Mcp.Tool.pipe(Schema.pick("name"))
    expect(Schema.decodeUnknownSync(Named)({ name: "x", other: 1 })).toEqual({ name: "x" })
    const Described = Mcp.Tool.annotations({ description: "a tool" })
    expect(JSONSchema.make(Described)).toMatchObject({ description: "a tool", required: ["inputSchema", "name"] })
    expect(Mcp.Tool.make(tool)).toEqual(tool)
    expect(String(Mcp.Role)).toBe(`"assistant" | "user"`)
    expect(Codec.schemaOf("domain", "Tool")).toBe(Mcp.Tool)
    expect(Either.isRight(Codec.decode("domain", "Tool", tool))).toBe(true)
  })

  it("the domain module builds nothing at import: every top-level const is a builder or a stand-in", () => {
    const source = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), "..", "src", "generated", "Domain.ts"),
      "utf8"
    )
    const consts = source.split("\n").filter((line) => /^(export )?const /.test(line))
    expect(consts.length).toBeGreaterThan(400)
    const eager = consts.filter((line) =>
      !/^const \w+: .* = lazily\(\(\) => /.test(line) &&
      !/^export const (\w+): .* = deferred\(build\1\)$/.test(line) &&
      !line.startsWith("export const definitions: {")
    )
    expect(eager).toEqual([])
  })
})
