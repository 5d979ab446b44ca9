/**
 * Results read the same in every era: one test body, written against McpTest's default client (which negotiates
 * 2026-07-28), passes unchanged with the client pinned to 2025-11-25. What the 2026 wire adds (`resultType`, the
 * cache hints, the server's identity in `_meta`) is not handed to the user; a result's own `_meta` is.
 */
import { McpClient, McpServer, McpTest } from "@effect-mcp/core"
import type { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const server = Layer.mergeAll(
  McpServer.tool({
    name: "echo",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed({ content: [{ type: "text" as const, text }], _meta: { mine: 1 } })
  }),
  McpServer.tool({
    name: "sum",
    input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
    output: Schema.Struct({ sum: Schema.Number }),
    handler: ({ a, b }) => Effect.succeed({ sum: a + b })
  }),
  McpServer.resource({ uri: "mem://a", name: "a", mimeType: "text/plain", read: Effect.succeed("A") }),
  McpServer.prompt({ name: "hello", handler: () => Effect.succeed("Hello") })
).pipe(
  Layer.provideMerge(McpServer.layer({ name: "neutral", version: "1.0.0", cache: { ttlMs: 60_000, scope: "public" } }))
)

/** The test body: the same for every revision. */
const body = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  expect(yield* client.callTool("echo", { text: "hi" })).toEqual({
    content: [{ type: "text", text: "hi" }],
    _meta: { mine: 1 }
  })
  expect(yield* client.callTool("sum", { a: 1, b: 2 })).toEqual({
    content: [{ type: "text", text: `{"sum":3}` }],
    structuredContent: { sum: 3 }
  })
  expect(yield* client.readResource("mem://a")).toEqual({
    contents: [{ uri: "mem://a", mimeType: "text/plain", text: "A" }]
  })
  expect(yield* client.getPrompt("hello")).toEqual({
    messages: [{ role: "user", content: { type: "text", text: "Hello" } }]
  })
  // A list twice: the second is answered from the 2026 client's cache, and reads the same.
  for (let i = 0; i < 2; i++) {
    expect((yield* client.request("tools/list", {})).tools.map((t) => t.name)).toEqual(["echo", "sum"])
    expect(yield* client.request("prompts/list", {})).toEqual({ prompts: [{ name: "hello" }] })
  }
  return client.revision
})

const pinned: ReadonlyArray<Revision.Revision | undefined> = [undefined, "2025-11-25"]

describe("results without wire-era fields", () => {
  for (const revision of pinned) {
    it.effect(`one test body, McpTest ${revision === undefined ? "as it negotiates" : `pinned to ${revision}`}`, () =>
      Effect.gen(function*() {
        const client = revision === undefined ? McpTest.defaultClient : { ...McpTest.defaultClient, revision }
        const negotiated = yield* body.pipe(Effect.provide(McpTest.layer(server, client)))
        expect(negotiated).toBe(revision ?? "2026-07-28")
      }))
  }
})
