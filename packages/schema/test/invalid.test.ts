/**
 * Hand-written invalid JSON-RPC / MCP messages fail with a typed `ParseError` whose description names the
 * offending path; and what must pass does: ids kept as sent, unknown methods, open objects, projection per
 * revision, `resultType`, and the wire errors of every revision.
 */
import { Codec, JsonRpc, McpError, type Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"

const deep = (n: number, bottom: unknown = "bottom"): unknown => {
  let v: unknown = bottom
  for (let i = 0; i < n; i++) v = { nested: v }
  return v
}

/** 2026-07-28 request `_meta` with the given client capabilities. */
const meta2026 = (clientCapabilities: unknown) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": clientCapabilities
})

/** Messages the envelope must refuse, each with a word its error must name. */
const invalidEnvelopes: ReadonlyArray<readonly [string, unknown, string]> = [
  ["wrong jsonrpc", { jsonrpc: "1.0", id: 1, method: "ping" }, "jsonrpc"],
  ["jsonrpc as a number", { jsonrpc: 2, id: 1, method: "ping" }, "jsonrpc"],
  ["missing method (an id and params only)", { jsonrpc: "2.0", id: 1, params: {} }, "method"],
  ["array id", { jsonrpc: "2.0", id: [1], method: "ping" }, "id"],
  ["missing jsonrpc", { id: 1, method: "ping" }, "jsonrpc"],
  ["float id", { jsonrpc: "2.0", id: 1.5, method: "ping" }, "id"],
  ["boolean id", { jsonrpc: "2.0", id: true, method: "ping" }, "id"],
  ["object id", { jsonrpc: "2.0", id: { n: 1 }, method: "ping" }, "id"],
  ["null id on a request", { jsonrpc: "2.0", id: null, method: "ping" }, "id"],
  ["numeric method", { jsonrpc: "2.0", id: 1, method: 7 }, "method"],
  ["params as an array", { jsonrpc: "2.0", id: 1, method: "ping", params: [1, 2] }, "params"],
  ["params as a string", { jsonrpc: "2.0", id: 1, method: "ping", params: "x" }, "params"],
  ["notification with numeric method", { jsonrpc: "2.0", method: 1 }, "method"],
  ["result and error together", { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }, "error"],
  ["method and result together", { jsonrpc: "2.0", id: 1, method: "ping", result: {} }, "result"],
  ["method and error together", { jsonrpc: "2.0", id: 1, method: "ping", error: { code: 1, message: "x" } }, "error"],
  ["result as an array", { jsonrpc: "2.0", id: 1, result: [1] }, "result"],
  ["result as null", { jsonrpc: "2.0", id: 1, result: null }, "result"],
  ["error without code", { jsonrpc: "2.0", id: 1, error: { message: "x" } }, "code"],
  ["error with a float code", { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } }, "code"],
  ["error without message", { jsonrpc: "2.0", id: 1, error: { code: -32600 } }, "message"],
  ["error as a string", { jsonrpc: "2.0", id: 1, error: "bad" }, "error"],
  ["response with a float id", { jsonrpc: "2.0", id: 2.5, result: {} }, "id"],
  ["neither method nor result", { jsonrpc: "2.0", id: 1 }, "method"],
  ["an array", [1, 2, 3], "jsonrpc"],
  ["a string", "hello", "Expected"],
  ["null", null, "Expected"],
  ["a number", 42, "Expected"],
  ["deep garbage", { jsonrpc: "2.0", id: 1, method: 5, params: deep(1000) }, "method"]
]

/** Params the method schemas must refuse, each with the path its error must name. */
const invalidParams: ReadonlyArray<readonly [string, string, Revision.Revision, unknown, string]> = [
  ["tools/call name as a number", "tools/call", "2025-11-25", { name: 42 }, "name"],
  ["tools/call without name", "tools/call", "2025-06-18", { arguments: {} }, "name"],
  ["tools/call arguments as an array", "tools/call", "2025-11-25", { name: "x", arguments: [1] }, "arguments"],
  ["initialize without protocolVersion", "initialize", "2025-11-25", {
    capabilities: {},
    clientInfo: { name: "c", version: "1" }
  }, "protocolVersion"],
  [
    "initialize without clientInfo",
    "initialize",
    "2024-11-05",
    { protocolVersion: "2024-11-05", capabilities: {} },
    "clientInfo"
  ],
  ["resources/read uri as an object", "resources/read", "2025-03-26", { uri: { href: "x" } }, "uri"],
  ["logging/setLevel with an unknown level", "logging/setLevel", "2025-06-18", { level: "loud" }, "level"],
  ["prompts/get arguments with a number", "prompts/get", "2025-11-25", { name: "p", arguments: { a: 1 } }, "arguments"],
  ["completion/complete with a bad ref", "completion/complete", "2025-11-25", {
    ref: { type: "ref/nothing" },
    argument: { name: "a", value: "b" }
  }, "ref"],
  [
    "progress token as a float",
    "notifications/progress",
    "2025-11-25",
    { progressToken: 1.5, progress: 1 },
    "progressToken"
  ],
  ["cancelled without requestId", "notifications/cancelled", "2025-06-18", { reason: "x" }, "requestId"],
  ["2026 request without _meta", "tools/list", "2026-07-28", {}, "_meta"],
  ["2026 request without clientCapabilities", "tools/call", "2026-07-28", {
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    name: "x"
  }, "clientCapabilities"],
  ["deep garbage as arguments' name", "tools/call", "2025-11-25", { name: deep(1000) }, "name"],
  ["tools/call params as an array", "tools/call", "2025-11-25", [{ name: "x" }], "actual [{"],
  ["resources/read uri as a number", "resources/read", "2025-11-25", { uri: 5 }, "uri"],
  ["initialize protocolVersion as a number", "initialize", "2025-11-25", {
    protocolVersion: 20251125,
    capabilities: {},
    clientInfo: { name: "c", version: "1" }
  }, "protocolVersion"],
  ["sampling with an unknown role", "sampling/createMessage", "2025-11-25", {
    messages: [{ role: "robot", content: { type: "text", text: "x" } }],
    maxTokens: 5
  }, "messages.0.role"],
  ["sampling maxTokens as a float", "sampling/createMessage", "2025-06-18", {
    messages: [{ role: "user", content: { type: "text", text: "x" } }],
    maxTokens: 5.5
  }, "maxTokens"],
  ["elicitation field of an unknown kind", "elicitation/create", "2025-06-18", {
    message: "m",
    requestedSchema: { type: "object", properties: { a: { type: "date" } } }
  }, "requestedSchema.properties.a.type"],
  ["deep garbage in 2026 client capabilities (JSON with a fraction 1000 levels down)", "tools/call", "2026-07-28", {
    name: "x",
    _meta: meta2026({ experimental: { x: deep(1000, 1.5) } })
  }, "_meta.io.modelcontextprotocol/clientCapabilities.experimental.x.nested"]
]

/** Results the method schemas must refuse, each with the path its error must name. */
const invalidResults: ReadonlyArray<readonly [string, string, Revision.Revision, unknown, string]> = [
  [
    "image content without mimeType",
    "tools/call",
    "2025-11-25",
    { content: [{ type: "image", data: "AA==" }] },
    "content.0.mimeType"
  ],
  ["isError as a string", "tools/call", "2025-06-18", { content: [], isError: "yes" }, "isError"],
  ["content as an object", "tools/call", "2024-11-05", { content: { type: "text", text: "x" } }, "content"],
  ["a tool whose inputSchema is not an object schema", "tools/list", "2025-11-25", {
    tools: [{ name: "t", inputSchema: { type: "array" } }]
  }, "tools.0.inputSchema.type"],
  ["2026 result without resultType", "tools/call", "2026-07-28", { content: [] }, "resultType"]
]

/** What the engine puts on the wire (`error.message`, Effect's tree, is unbounded for deep garbage). */
const message = (error: ParseResult.ParseError) => Codec.describe(error)

/** The error of a result that must have failed. */
const left = <A>(result: Either.Either<A, ParseResult.ParseError>): ParseResult.ParseError => {
  if (Either.isRight(result)) expect.fail(`expected a ParseError, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("invalid messages fail with a typed parse error naming the path", () => {
  it("there are at least 30", () => {
    expect(invalidEnvelopes.length + invalidParams.length + invalidResults.length).toBeGreaterThanOrEqual(30)
  })

  for (const [label, input, word] of invalidEnvelopes) {
    it(`envelope: ${label}`, () => {
      const error = left(JsonRpc.decodeMessage(input))
      expect(error).toBeInstanceOf(ParseResult.ParseError)
      expect(message(error)).toContain(word)
    })
  }

  for (const [label, method, revision, params, word] of invalidParams) {
    it(`params: ${label}`, () => {
      const error = left(Codec.decodeParams(method, revision, params))
      expect(error).toBeInstanceOf(ParseResult.ParseError)
      expect(message(error)).toContain(word)
    })
  }

  for (const [label, method, revision, result, word] of invalidResults) {
    it(`result: ${label}`, () => {
      const error = left(Codec.decodeResult(method, revision, result))
      expect(error).toBeInstanceOf(ParseResult.ParseError)
      expect(message(error)).toContain(word)
    })
  }

  it("batches: empty, not an array, or with an invalid member", () => {
    const empty = left(JsonRpc.decodeBatch([]))
    expect(empty).toBeInstanceOf(ParseResult.ParseError)
    expect(Codec.describe(empty)).toContain("0: is missing")
    expect(left(JsonRpc.decodeBatch({ jsonrpc: "2.0", id: 1, method: "ping" }))).toBeInstanceOf(ParseResult.ParseError)
    const second = left(JsonRpc.decodeBatch([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 1.5 }]))
    expect(Codec.describe(second)).toContain("1.id")
  })

  it("deep garbage is described in a few short issues, not megabytes", () => {
    const error = left(Codec.decodeParams("tools/call", "2026-07-28", {
      name: "x",
      _meta: meta2026({ experimental: { x: deep(1000, 1.5) } })
    }))
    expect(Codec.describe(error).length).toBeLessThan(4000)
  })

  it("nesting deeper than the stack allows fails as a ParseError instead of throwing", () => {
    const params = { name: "x", _meta: meta2026({ experimental: { x: deep(50_000) } }) }
    const error = left(Codec.decodeParams("tools/call", "2026-07-28", params))
    expect(error).toBeInstanceOf(ParseResult.ParseError)
    expect(Codec.describe(error)).toContain("nested too deeply")
    expect(left(Codec.encodeParams("tools/call", "2026-07-28", params))).toBeInstanceOf(ParseResult.ParseError)
  })
})

describe("what must decode", () => {
  it("a string id stays a string, an integer id an integer", () => {
    expect(Either.getOrThrow(JsonRpc.decodeMessage({ jsonrpc: "2.0", id: "7", method: "ping" }))).toMatchObject({
      id: "7"
    })
    expect(Either.getOrThrow(JsonRpc.decodeMessage({ jsonrpc: "2.0", id: 7, method: "ping" }))).toMatchObject({ id: 7 })
  })

  it("a request for an unknown method still decodes as a request", () => {
    const m = Either.getOrThrow(JsonRpc.decodeMessage({ jsonrpc: "2.0", id: 3, method: "no/such" }))
    expect(JsonRpc.isRequest(m)).toBe(true)
  })

  it("_meta custom keys and unknown extension fields pass decode and encode unchanged", () => {
    const params = {
      name: "t",
      arguments: { a: 1 },
      _meta: { progressToken: 5, "com.example/trace": { id: "abc" } },
      "com.example/extra": true
    }
    const decoded = Either.getOrThrow(Codec.decodeParams("tools/call", "2025-11-25", params))
    expect(decoded).toEqual(params)
    expect(Either.getOrThrow(Codec.encodeParams("tools/call", "2025-11-25", decoded))).toEqual(params)
  })

  it("encoding for 2024-11-05 drops what it lacks; 2025-11-25 keeps it", () => {
    const tool = { name: "t", title: "T", icons: [{ src: "https://x/i.png" }], inputSchema: { type: "object" } }
    expect(Either.getOrThrow(Codec.encode("2024-11-05", "Tool", tool))).toEqual({
      name: "t",
      inputSchema: { type: "object" }
    })
    expect(Either.getOrThrow(Codec.encode("2025-11-25", "Tool", tool))).toEqual(tool)
  })

  it("resultType is only emitted for 2026-07-28", () => {
    const result = { content: [{ type: "text", text: "x" }], resultType: "complete" }
    expect(Either.getOrThrow(Codec.encodeResult("tools/call", "2025-11-25", result))).toEqual({
      content: result.content
    })
    expect(Either.getOrThrow(Codec.encodeResult("tools/call", "2026-07-28", result))).toEqual(result)
  })

  it("a value a revision cannot express fails to encode", () => {
    const audio = { content: [{ type: "audio", data: "AA==", mimeType: "audio/wav" }] }
    expect(Either.isLeft(Codec.encodeResult("tools/call", "2024-11-05", audio))).toBe(true)
    expect(Either.isRight(Codec.encodeResult("tools/call", "2025-03-26", audio))).toBe(true)
  })
})

describe("wire errors", () => {
  it("resource not found is -32002 before 2026-07-28 and -32602 from it", () => {
    const e = new McpError.ResourceNotFound({ message: "nope", uri: "file:///x" })
    expect(McpError.toWire(e, "2025-11-25")).toEqual({ code: -32002, message: "nope", data: { uri: "file:///x" } })
    expect(McpError.toWire(e, "2026-07-28")).toEqual({ code: -32602, message: "nope", data: { uri: "file:///x" } })
  })

  it("every error class round-trips with its code and typed data", () => {
    const errors: ReadonlyArray<McpError.McpError> = [
      new McpError.ParseError({ message: "p" }),
      new McpError.InvalidRequest({ message: "r" }),
      new McpError.MethodNotFound({ message: "m" }),
      new McpError.InvalidParams({ message: "i", data: { path: "x" } }),
      new McpError.InternalError({ message: "e" }),
      new McpError.RequestTimeout({ message: "t" }),
      new McpError.ResourceNotFound({ message: "n", uri: "u://x" }),
      new McpError.UrlElicitationRequired({
        message: "u",
        elicitations: [{ mode: "url", message: "go", url: "https://x", elicitationId: "1" }]
      }),
      new McpError.HeaderMismatch({ message: "h" }),
      new McpError.MissingRequiredClientCapability({ message: "c", requiredCapabilities: { sampling: {} } }),
      new McpError.UnsupportedProtocolVersion({ message: "v", supported: ["2026-07-28"], requested: "1999" }),
      new McpError.JsonRpcError({ code: -31000, message: "custom", data: [1] })
    ]
    const codes = [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32042, -32020, -32021, -32022, -31000]
    errors.forEach((error, i) => {
      const wire = McpError.toWire(error, "2025-11-25")
      expect(wire.code).toBe(codes[i])
      const back = McpError.fromWire(wire)
      expect(back._tag).toBe(error._tag)
      expect(back).toEqual(error)
      expect(McpError.toWire(back, "2025-11-25")).toEqual(wire)
    })
  })

  it("typed data survives the wire", () => {
    const back = McpError.fromWire({
      code: -32022,
      message: "v",
      data: { supported: ["2026-07-28"], requested: "1999" }
    })
    expect(back).toBeInstanceOf(McpError.UnsupportedProtocolVersion)
    expect(back).toMatchObject({ supported: ["2026-07-28"], requested: "1999", code: -32022 })
    const caps = McpError.fromWire({ code: -32021, message: "c", data: { requiredCapabilities: { elicitation: {} } } })
    expect(caps).toBeInstanceOf(McpError.MissingRequiredClientCapability)
    expect(caps).toMatchObject({ requiredCapabilities: { elicitation: {} } })
    const gone = McpError.fromWire({ code: -32602, message: "n", data: { uri: "file:///x" } })
    expect(gone).toBeInstanceOf(McpError.ResourceNotFound)
    expect(McpError.toWire(gone, "2026-07-28")).toEqual({ code: -32602, message: "n", data: { uri: "file:///x" } })
    expect(McpError.toWire(gone, "2025-11-25").code).toBe(-32002)
    const malformed = McpError.fromWire({ code: -32022, message: "v", data: { supported: "all" } })
    expect(malformed).toBeInstanceOf(McpError.JsonRpcError)
    expect(McpError.toWire(malformed, "2025-11-25")).toEqual({ code: -32022, message: "v", data: { supported: "all" } })
  })
})
