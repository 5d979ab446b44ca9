import { JsonRpc } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"

describe("JsonRpc", () => {
  it("keeps a string id a string", () => {
    const m = JsonRpc.decodeMessage({ jsonrpc: "2.0", id: "7", method: "ping" })
    expect(Either.getOrThrow(m)).toEqual({ jsonrpc: "2.0", id: "7", method: "ping" })
  })
})
