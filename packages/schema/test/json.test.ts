/**
 * The reads of a parsed value every layer makes before any schema: whether it is a plain object, and a view of it as
 * one.
 */
import { Json } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"

describe("Json.isRecord and Json.record", () => {
  it("a plain object is a record; null, arrays and scalars are not", () => {
    const o = { a: 1 }
    expect(Json.isRecord(o)).toBe(true)
    expect(Json.isRecord({})).toBe(true)
    expect(Json.record(o)).toBe(o)
    for (const u of [null, undefined, [], [1], Object.assign([], { a: 1 }), "a", 7, true]) {
      expect(Json.isRecord(u)).toBe(false)
      expect(Json.record(u)).toEqual({})
    }
  })
})
