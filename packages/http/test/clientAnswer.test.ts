/**
 * The client's reading of a body without `Content-Length`: decoded as its chunks arrive (a character split across two
 * chunks comes out whole), and refused once it grows past `maxMessageBytes`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Answer from "../src/internal/client/answer.js"
import type * as McpHttpClient from "../src/McpHttpClient.js"

/** A response whose body arrives as these chunks, with no declared length. */
const chunked = (chunks: ReadonlyArray<Uint8Array>): McpHttpClient.IncomingResponse => ({
  status: 200,
  headers: { "content-type": "application/json" },
  text: Effect.succeed(new TextDecoder().decode(concat(chunks))),
  stream: Stream.fromIterable(chunks)
})

const concat = (chunks: ReadonlyArray<Uint8Array>) => {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.length
  }
  return all
}

describe("the client's bounded body reader", () => {
  it.effect("decodes a streamed body whole, characters split across chunks included", () =>
    Effect.gen(function*() {
      const bytes = new TextEncoder().encode(JSON.stringify({ text: "héllo wörld ✓ 🎉" }))
      // Every split point, so that each multi-byte character is cut somewhere.
      for (let cut = 1; cut < bytes.length; cut++) {
        const text = yield* Answer.boundedText(chunked([bytes.subarray(0, cut), bytes.subarray(cut)]), 1_000)
        expect(JSON.parse(text)).toEqual({ text: "héllo wörld ✓ 🎉" })
      }
    }))

  it.effect("refuses a streamed body past the limit", () =>
    Effect.gen(function*() {
      const chunk = new TextEncoder().encode("x".repeat(60))
      const failed = yield* Effect.flip(Answer.boundedText(chunked([chunk, chunk]), 100))
      expect(failed.reason).toContain("maxMessageBytes")
      expect(yield* Answer.boundedText(chunked([chunk]), 100)).toBe("x".repeat(60))
    }))
})
