/**
 * The JSON-RPC envelope, for what the other schema tests leave open (each case kills mutants that survived
 * `pnpm mutation`, see docs/mutation.md): each kind of message is decoded by its own schema (its error names that
 * schema, not the union of all four), an optional member present as `undefined` is refused, the id salvaged from a
 * bad frame is a string or an integer or nothing, and the builders and type tests.
 */
import { JsonRpc } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"

/** The first line of a decoding error's tree: the schema that refused the message. */
const refusedBy = (u: unknown): string => {
  const decoded = JsonRpc.decodeMessage(u)
  if (Either.isRight(decoded)) return "accepted"
  return decoded.left.message.split("\n")[0]!
}

const union = "JSONRPCRequest | JSONRPCNotification | JSONRPCResultResponse | JSONRPCErrorResponse"

describe("JsonRpc.decodeMessage", () => {
  it("a message is checked against the schema its keys name, so its error is that schema's", () => {
    expect(refusedBy({ jsonrpc: "2.0", id: 1.5, method: "ping" })).toBe("JSONRPCRequest")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", params: [] })).toBe("JSONRPCRequest")
    expect(refusedBy({ jsonrpc: "2.0", method: 5 })).toBe("JSONRPCNotification")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, result: 5 })).toBe("JSONRPCResultResponse")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } })).toBe("JSONRPCErrorResponse")
    expect(JsonRpc.decodeMessage({ jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } })).toMatchObject({
      left: { message: expect.stringContaining("└─ Error\n") }
    })
  })

  it("a message whose keys name no one kind, or that is no object, is checked against the union", () => {
    expect(refusedBy({ jsonrpc: "2.0", id: 1 })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", result: {} })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", error: { code: 1, message: "m" } })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "m" } })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", method: "x", result: {} })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", result: {} })).toBe(union)
    expect(refusedBy({ jsonrpc: "2.0", error: { code: 1, message: "m" } })).toBe(union)
    // An array is checked as one message (a batch is the engine's to split): its members are missing.
    expect(refusedBy([{ jsonrpc: "2.0", id: 1, method: "ping" }])).toBe(union)
    expect(refusedBy(null)).toBe(`Expected ${union}, actual null`)
    expect(refusedBy("ping")).toBe(`Expected ${union}, actual "ping"`)
  })

  it("each kind of valid message decodes as itself", () => {
    for (
      const m of [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "t" } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
        { jsonrpc: "2.0", id: "x", error: { code: -32602, message: "m", data: { a: 1 } } }
      ]
    ) {
      expect(JsonRpc.decodeMessage(m)).toEqual(Either.right(m))
    }
  })

  it("an optional member present as undefined is refused (params, and the members a kind must not have)", () => {
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", params: undefined })).toBe("JSONRPCRequest")
    expect(refusedBy({ jsonrpc: "2.0", method: "x", params: undefined })).toBe("JSONRPCNotification")
    expect(refusedBy({ jsonrpc: "2.0", method: "x", id: undefined })).not.toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", result: undefined })).not.toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", error: undefined })).not.toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, result: {}, error: undefined })).not.toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, result: {}, method: undefined })).not.toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" }, result: undefined })).not.toBe(
      "accepted"
    )
  })

  it("params and a result are objects with string keys", () => {
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", params: { a: undefined, b: [1] } })).toBe("accepted")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, method: "ping", params: "p" })).toBe("JSONRPCRequest")
    expect(refusedBy({ jsonrpc: "2.0", id: 1, result: null })).toBe("JSONRPCResultResponse")
  })
})

describe("JsonRpc.salvageId", () => {
  it("a string or an integer id is kept as sent; anything else, or no object, is null", () => {
    expect(JsonRpc.salvageId({ id: "7" })).toBe("7")
    expect(JsonRpc.salvageId({ id: "" })).toBe("")
    expect(JsonRpc.salvageId({ id: 7 })).toBe(7)
    expect(JsonRpc.salvageId({ id: -1 })).toBe(-1)
    expect(JsonRpc.salvageId({ id: 1.5 })).toBeNull()
    expect(JsonRpc.salvageId({ id: Number.NaN })).toBeNull()
    expect(JsonRpc.salvageId({ id: null })).toBeNull()
    expect(JsonRpc.salvageId({ id: true })).toBeNull()
    expect(JsonRpc.salvageId({ id: [7] })).toBeNull()
    expect(JsonRpc.salvageId({ id: { id: 7 } })).toBeNull()
    expect(JsonRpc.salvageId({})).toBeNull()
    expect(JsonRpc.salvageId([7])).toBeNull()
    expect(JsonRpc.salvageId(Object.assign([7], { id: 7 }))).toBeNull()
    expect(JsonRpc.salvageId(null)).toBeNull()
    expect(JsonRpc.salvageId(7)).toBeNull()
    expect(JsonRpc.salvageId("7")).toBeNull()
  })
})

describe("JsonRpc.looksLike*: what a frame not yet decoded claims to be by its keys", () => {
  it("a request: a string method and a request id", () => {
    expect(JsonRpc.looksLikeRequest({ id: 1, method: "m" })).toBe(true)
    expect(JsonRpc.looksLikeRequest({ id: "a", method: "m", jsonrpc: "1.0" })).toBe(true)
    expect(JsonRpc.looksLikeRequest({ id: 1.5, method: "m" })).toBe(false)
    expect(JsonRpc.looksLikeRequest({ id: null, method: "m" })).toBe(false)
    expect(JsonRpc.looksLikeRequest({ method: "m" })).toBe(false)
    expect(JsonRpc.looksLikeRequest({ id: 1, method: 5 })).toBe(false)
    expect(JsonRpc.looksLikeRequest(Object.assign([], { id: 1, method: "m" }))).toBe(false)
  })

  it("a notification: a string method and no id at all", () => {
    expect(JsonRpc.looksLikeNotification({ method: "m" })).toBe(true)
    expect(JsonRpc.looksLikeNotification({ method: "m", id: undefined })).toBe(false)
    expect(JsonRpc.looksLikeNotification({ method: 5 })).toBe(false)
    expect(JsonRpc.looksLikeNotification(Object.assign([], { method: "m" }))).toBe(false)
  })

  it("a response: a result or an error and no method, its id unchecked", () => {
    expect(JsonRpc.looksLikeResponse({ id: 1, result: {} })).toBe(true)
    expect(JsonRpc.looksLikeResponse({ error: {} })).toBe(true)
    expect(JsonRpc.looksLikeResponse({ id: 1 })).toBe(false)
    expect(JsonRpc.looksLikeResponse({ id: 1, method: "m", result: {} })).toBe(false)
    expect(JsonRpc.looksLikeResponse(Object.assign([], { result: 1 }))).toBe(false)
    for (const u of [null, undefined, "result", 7, true]) {
      expect(JsonRpc.looksLikeRequest(u)).toBe(false)
      expect(JsonRpc.looksLikeNotification(u)).toBe(false)
      expect(JsonRpc.looksLikeResponse(u)).toBe(false)
    }
  })

  it("a request id is a string or a safe integer", () => {
    for (const id of ["", "7", 0, -1, Number.MAX_SAFE_INTEGER]) expect(JsonRpc.isRequestId(id)).toBe(true)
    for (const id of [1.5, Number.NaN, 2 ** 53, null, undefined, true, [7], { id: 7 }]) {
      expect(JsonRpc.isRequestId(id)).toBe(false)
    }
  })
})

describe("JsonRpc builders and type tests", () => {
  it("the builders make exactly the message, with no params member when there are none", () => {
    expect(JsonRpc.request(1, "ping")).toStrictEqual({ jsonrpc: "2.0", id: 1, method: "ping" })
    expect(JsonRpc.request("a", "m", { x: 1 })).toStrictEqual({
      jsonrpc: "2.0",
      id: "a",
      method: "m",
      params: { x: 1 }
    })
    expect(JsonRpc.notification("n")).toStrictEqual({ jsonrpc: "2.0", method: "n" })
    expect(JsonRpc.notification("n", {})).toStrictEqual({ jsonrpc: "2.0", method: "n", params: {} })
    expect(JsonRpc.success(2, { a: 1 })).toStrictEqual({ jsonrpc: "2.0", id: 2, result: { a: 1 } })
    expect(JsonRpc.failure(null, { code: -32600, message: "m" })).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "m" }
    })
  })

  it("each message is exactly one of request, notification or response", () => {
    const request = JsonRpc.request(1, "ping")
    const notification = JsonRpc.notification("n")
    const success = JsonRpc.success(1, {})
    const failure = JsonRpc.failure(1, { code: 1, message: "m" })
    const kinds = (m: JsonRpc.Message) => [
      JsonRpc.isRequest(m),
      JsonRpc.isNotification(m),
      JsonRpc.isResponse(m),
      JsonRpc.isErrorResponse(m)
    ]
    expect(kinds(request)).toEqual([true, false, false, false])
    expect(kinds(notification)).toEqual([false, true, false, false])
    expect(kinds(success)).toEqual([false, false, true, false])
    expect(kinds(failure)).toEqual([false, false, true, true])
  })

  it("a batch is a non-empty array of messages", () => {
    expect(Either.isLeft(JsonRpc.decodeBatch([]))).toBe(true)
    expect(Either.isLeft(JsonRpc.decodeBatch({}))).toBe(true)
    expect(JsonRpc.decodeBatch([{ jsonrpc: "2.0", method: "n" }])).toEqual(
      Either.right([{ jsonrpc: "2.0", method: "n" }])
    )
  })
})
