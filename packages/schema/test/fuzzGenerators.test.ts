/**
 * The fuzzers' generators (test/fuzz/) do what the fuzz tests rely on: the params they start from are valid for the
 * revision (so what makes a frame hostile is the one value put into it), every frame is one line of JSON with the
 * hostile value where it says, ids are unique per frame and read as the frame says, depths reach 10,000 and strings
 * 1 MB, and one seed gives the same frames again.
 */
import { Codec, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Answers from "./fuzz/answers.js"
import * as Frames from "./fuzz/frames.js"
import * as H from "./fuzz/hostile.js"

const catalogue: Frames.Catalogue = {
  tools: [{
    name: "echo",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
  }],
  prompts: [{ name: "greet", arguments: [{ name: "who" }] }],
  uris: ["test://static-text"]
}

describe("fuzz generators", () => {
  for (const revision of Revision.all) {
    it(`${revision}: the params every frame starts from are valid`, () => {
      for (const method of Frames.clientRequests(revision)) {
        for (const params of fc.sample(Frames.validParams(revision, method, catalogue), { numRuns: 30, seed: 1 })) {
          const decoded = Codec.decodeParams(method, revision, params)
          if (Either.isLeft(decoded)) expect.fail(`${method}: ${Codec.describe(decoded.left)}`)
        }
      }
    })

    it(`${revision}: the valid answers of the hostile server decode, and its hostile ones are one line each`, () => {
      const handshake = JSON.parse(Answers.handshakeAnswer(revision).replace(Answers.idPlaceholder, "1")).result
      const decodedHandshake = Codec.decode(
        revision,
        Revision.isStateless(revision) ? "DiscoverResult" : "InitializeResult",
        handshake
      )
      if (Either.isLeft(decodedHandshake)) expect.fail(`handshake: ${Codec.describe(decodedHandshake.left)}`)
      for (const method of Answers.answeredMethods(revision)) {
        const valid = JSON.parse(Answers.validAnswer(revision, method).replace(Answers.idPlaceholder, "1"))
        const decoded = Codec.decodeResult(method, revision, valid.result)
        if (Either.isLeft(decoded)) expect.fail(`${method}: ${Codec.describe(decoded.left)}`)
        for (const answer of fc.sample(Answers.hostileAnswers(revision, [method]), { numRuns: 10, seed: 2 })) {
          for (const line of answer.lines) {
            expect(line).not.toMatch(/[\n\r]/)
          }
        }
      }
    })
  }

  it("frames are one line of JSON, with the hostile value where they say and the id they say", () => {
    const makers = fc.sample(Frames.requestFrames("2025-11-25", { catalogue }), { numRuns: 300, seed: 3 })
    const frames = makers.map((make, i) => make(i))
    const ids = new Set<unknown>()
    let deepest = 0
    let longest = 0
    for (const frame of frames) {
      expect(frame.text).not.toMatch(/[\n\r]/)
      const parsed = JSON.parse(frame.text)
      if (frame.id !== null) {
        expect(ids.has(frame.id), `id ${String(frame.id).slice(0, 40)} twice`).toBe(false)
        ids.add(frame.id)
        expect(parsed.id === frame.id || JSON.stringify(parsed.id) === JSON.stringify(frame.id)).toBe(true)
      } else {
        expect(typeof parsed.id === "string" || Number.isSafeInteger(parsed.id)).toBe(false)
      }
      const depth = /nested (\d+) deep/.exec(frame.value)
      if (depth) deepest = Math.max(deepest, Number(depth[1]))
      longest = Math.max(longest, frame.text.length)
    }
    expect(deepest).toBeGreaterThanOrEqual(5000)
    expect(longest).toBeGreaterThan(100_000)
    expect(new Set(frames.map((f) => f.path.split(".")[0])).size).toBeGreaterThan(3)
    expect(frames.some((f) => f.path.includes("_meta"))).toBe(true)
  })

  it("values nest as deep as they say, up to 10,000, and strings reach 1 MB", () => {
    const deep = H.nested(10_000, [0, 1], "1")
    let depth = 0
    let v: unknown = JSON.parse(deep.text)
    while (typeof v === "object" && v !== null) {
      depth++
      v = Array.isArray(v) ? v[0] : (v as Record<string, unknown>).a
    }
    expect(depth).toBe(10_000)
    expect(JSON.parse(H.longString(1_000_000, 0).text)).toHaveLength(1_000_000)
    for (let unit = 0; unit < 9; unit++) {
      expect(Buffer.byteLength(H.longString(1_000_000, unit).text)).toBeLessThanOrEqual(1_000_002)
    }
    expect(H.splice({ a: [1, { b: 2 }] }, ["a", 1, "b"], "[[[]]]")).toBe("{\"a\":[1,{\"b\":[[[]]]}]}")
    expect(H.splice({ a: 1 }, ["x", "y"], "null")).toBe("{\"a\":1,\"x\":{\"y\":null}}")
  })

  it("one seed gives the same frames", () => {
    const once = fc.sample(Frames.requestFrames("2026-07-28"), { numRuns: 50, seed: 4 }).map((m, i) => m(i).text)
    const again = fc.sample(Frames.requestFrames("2026-07-28"), { numRuns: 50, seed: 4 }).map((m, i) => m(i).text)
    expect(again).toEqual(once)
  })
})
