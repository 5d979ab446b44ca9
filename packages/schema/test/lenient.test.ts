import { Codec } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"

const linkResult = {
  content: [{ type: "text", text: "see" }, { type: "resource_link", uri: "file:///a.txt", name: "a.txt" }]
}

const richForm = {
  message: "Your details",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", default: "Ada" },
      colours: { type: "array", items: { anyOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }] } }
    }
  }
}

describe("lenient decoding (a peer ahead of the revision it negotiated)", () => {
  it("reads resource_link content on 2024-11-05 as 2025-06-18 defines it", () => {
    expect(Either.isLeft(Codec.decodeResult("tools/call", "2024-11-05", linkResult))).toBe(true)
    const decoded = Codec.decodeResultLenient("tools/call", "2024-11-05", linkResult)
    expect(Either.getOrThrow(decoded)).toMatchObject({ content: [{ type: "text" }, { type: "resource_link" }] })
  })

  it("reads a 2025-11-25 elicitation form on 2025-06-18", () => {
    expect(Either.isLeft(Codec.decodeParams("elicitation/create", "2025-06-18", richForm))).toBe(true)
    const decoded = Codec.decodeParamsLenient("elicitation/create", "2025-06-18", richForm)
    expect(Either.getOrThrow(decoded)).toMatchObject({ message: "Your details" })
  })

  it("answers such a form with what the newer revision allows (a multi-select answer)", () => {
    const answer = { action: "accept", content: { name: "Ada", colours: ["r", "g"] } }
    expect(Either.isLeft(Codec.encodeResult("elicitation/create", "2025-06-18", answer))).toBe(true)
    expect(Either.getOrThrow(Codec.encodeResultLenient("elicitation/create", "2025-06-18", answer))).toEqual(answer)
  })

  it("still rejects what no revision accepts, with the negotiated revision's error", () => {
    const bad = { content: [{ type: "hologram" }] }
    const strict = Codec.decodeResult("tools/call", "2024-11-05", bad)
    const lenient = Codec.decodeResultLenient("tools/call", "2024-11-05", bad)
    expect(Either.isLeft(lenient)).toBe(true)
    expect(Either.isLeft(strict) && Either.isLeft(lenient) && Codec.describe(lenient.left)).toBe(
      Either.isLeft(strict) && Codec.describe(strict.left)
    )
  })
})
