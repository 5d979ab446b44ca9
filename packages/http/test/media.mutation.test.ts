/**
 * Content negotiation as pure functions, for what contentNegotiation.test.ts leaves open (each case kills mutants
 * that survived `pnpm mutation`, see docs/mutation.md): whitespace around a media type and its parameters, a list
 * where one media type belongs, parameters that are no `q`, weights outside 0..1, a wildcard of another type, and a
 * client that accepts only SSE.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Media from "../src/internal/media.js"

describe("Media.isJson", () => {
  it("whitespace around the media type is no part of it; a list is not one media type", () => {
    expect(Media.isJson("application/json ; charset=utf-8")).toBe(true)
    expect(Media.isJson("application/json\t;charset=utf-8")).toBe(true)
    expect(Media.isJson("application/json; charset=utf-8, text/html")).toBe(false)
    expect(Media.isJson("application/json;a=b,c")).toBe(false)
    expect(Media.isJson("application/json,")).toBe(false)
  })
})

describe("Media.accepted", () => {
  it("a range names a form only when its type and its subtype both match", () => {
    expect(Media.accepted("text/json")).toEqual({ json: false, sse: false })
    expect(Media.accepted("application/event-stream")).toEqual({ json: false, sse: false })
    expect(Media.accepted("text/json, application/event-stream")).toEqual({ json: false, sse: false })
    expect(Media.accepted("text/json;q=0, application/json")).toEqual({ json: true, sse: false })
  })

  it("whitespace around a range, its parameters and their names is no part of them", () => {
    expect(Media.accepted("text/event-stream, application/json ; q=0.5")).toEqual({ json: true, sse: true })
    expect(Media.accepted("application/json; q=0, text/event-stream")).toEqual({ json: false, sse: true })
    expect(Media.accepted("application/json;Q=0 , text/event-stream")).toEqual({ json: false, sse: true })
    expect(Media.accepted("   ")).toEqual({ json: true, sse: true })
  })

  it("a parameter that is not q, or has no value, leaves the weight alone", () => {
    expect(Media.accepted("application/json;qq, text/event-stream")).toEqual({ json: true, sse: true })
    expect(Media.accepted("application/json;level=1;q=0")).toEqual({ json: false, sse: false })
    expect(Media.accepted("application/json;x=0")).toEqual({ json: true, sse: false })
  })

  it("a weight is between 0 and 1: 1 accepts, and a weight out of range accepts nothing", () => {
    expect(Media.accepted("application/json;q=1")).toEqual({ json: true, sse: false })
    expect(Media.accepted("application/json;q=0.001")).toEqual({ json: true, sse: false })
    expect(Media.accepted("application/json;q=2, text/event-stream")).toEqual({ json: false, sse: true })
    expect(Media.accepted("application/json;q=1.5")).toEqual({ json: false, sse: false })
    expect(Media.accepted("application/json;q=-1")).toEqual({ json: false, sse: false })
    expect(Media.accepted("application/json;q=abc")).toEqual({ json: false, sse: false })
  })

  it("a wildcard subtype covers its own type only", () => {
    expect(Media.accepted("image/*")).toEqual({ json: false, sse: false })
    expect(Media.accepted("image/*, text/*")).toEqual({ json: false, sse: true })
    expect(Media.accepted("application/*")).toEqual({ json: true, sse: false })
  })
})

describe("Media.answerAs", () => {
  it("a client that accepts one form gets that form; the mode decides only when it accepts both", () => {
    expect(Media.answerAs({ json: false, sse: true }, "json", false)).toBe("sse")
    expect(Media.answerAs({ json: true, sse: false }, "sse", false)).toBe("json")
    expect(Media.answerAs({ json: true, sse: true }, "json", false)).toBe("json")
    expect(Media.answerAs({ json: true, sse: true }, "sse", false)).toBe("sse")
    expect(Media.answerAs({ json: false, sse: false }, "json", false)).toBeUndefined()
    expect(Media.answerAs({ json: true, sse: false }, "json", true)).toBeUndefined()
    expect(Media.answerAs({ json: true, sse: true }, "json", true)).toBe("sse")
  })
})
