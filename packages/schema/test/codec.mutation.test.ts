/**
 * The per-revision codecs, for what the other schema tests leave open (each case kills mutants that survived
 * `pnpm mutation`, see docs/mutation.md): types and methods a revision lacks, the domain's own types, the JSON
 * types, absent and present params, `input_required` results, the order in which leniency tries revisions, and
 * the bounds of `Codec.describe`.
 */
import { Codec, Json, type Mcp } from "@effect-mcp/schema"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const message = (e: Either.Either<unknown, ParseResult.ParseError>): string =>
  Either.isLeft(e) ? Codec.describe(e.left) : "accepted"

const text = { content: [{ type: "text", text: "hi" }] }

describe("what a revision does not have", () => {
  it("a type a revision lacks fails to decode and to encode, naming the type and the revision", () => {
    expect(message(Codec.decode("2024-11-05", "ElicitRequest", {}))).toBe(
      "ElicitRequest does not exist in revision 2024-11-05"
    )
    expect(message(Codec.encode("2024-11-05", "ElicitResult", { action: "accept" }))).toBe(
      "ElicitResult does not exist in revision 2024-11-05"
    )
    expect(Codec.schemaOf("2024-11-05", "ElicitRequest")).toBeUndefined()
  })

  it("a method a revision lacks fails its params and its result, naming the method", () => {
    for (const revision of ["2024-11-05", "2025-06-18"] as const) {
      expect(message(Codec.decodeParams("no/such", revision, {}))).toBe(
        `no/such does not exist in revision ${revision}`
      )
      expect(message(Codec.encodeParams("no/such", revision, {}))).toBe(
        `no/such does not exist in revision ${revision}`
      )
      expect(message(Codec.decodeResult("no/such", revision, {}))).toBe(
        `no/such does not exist in revision ${revision}`
      )
      expect(message(Codec.encodeResult("no/such", revision, {}))).toBe(
        `no/such does not exist in revision ${revision}`
      )
    }
    expect(message(Codec.decodeParams("elicitation/create", "2024-11-05", { message: "m" }))).toBe(
      "elicitation/create does not exist in revision 2024-11-05"
    )
  })
})

describe("types every revision shares", () => {
  it("the domain's types are the domain's own", () => {
    const tool = { name: "t", inputSchema: { type: "object" } }
    expect(Codec.decode("domain", "Tool", tool)).toEqual(Either.right(tool))
    expect(Codec.schemaOf("domain", "Tool")).toBeDefined()
    expect(Codec.schemaOf("domain", "NoSuchType")).toBeUndefined()
  })

  it("the JSON types are the hand-written ones in every revision and in the domain", () => {
    for (const revision of ["domain", "2024-11-05", "2026-07-28"] as const) {
      expect(Codec.schemaOf(revision, "JSONValue")).toBe(Json.JsonValue)
      expect(Codec.schemaOf(revision, "JSONObject")).toBe(Json.JsonObject)
      expect(Codec.schemaOf(revision, "JSONArray")).toBe(Json.JsonArray)
    }
    expect(Codec.decode("2025-06-18", "JSONObject", { a: [1, "x", { b: true }] })).toEqual(
      Either.right({ a: [1, "x", { b: true }] })
    )
  })

  it("a codec is compiled once per revision and type", () => {
    expect(Codec.decoder("2025-06-18", "Tool")).toBe(Codec.decoder("2025-06-18", "Tool"))
    expect(Codec.encoder("2025-06-18", "Tool")).toBe(Codec.encoder("2025-06-18", "Tool"))
    expect(Codec.decoder("2025-06-18", "Tool")).not.toBe(Codec.decoder("2025-03-26", "Tool"))
    expect(Codec.decoder("2025-06-18", "Tool")).not.toBe(Codec.decoder("2025-06-18", "Resource"))
  })

  it("an error thrown while decoding is invalid input, never a throw; only a stack overflow is called too deep", () => {
    const hostile = new Proxy({}, {
      get: () => {
        throw new TypeError("a hostile getter")
      },
      has: () => {
        throw new TypeError("a hostile getter")
      },
      ownKeys: () => {
        throw new TypeError("a hostile getter")
      }
    })
    const decoded = Codec.decode("2025-06-18", "Tool", hostile)
    expect(Either.isLeft(decoded)).toBe(true)
    expect(Codec.describe(Codec.unreadable(1, new RangeError("x")))).toContain("nested too deeply")
    expect(Codec.describe(Codec.unreadable(1, new TypeError("x")))).toContain("could not be read")
  })
})

describe("params", () => {
  it("absent params pass as undefined where the method allows it, and fail where it requires them", () => {
    expect(Codec.decodeParams("ping", "2025-06-18", undefined)).toEqual(Either.right(undefined))
    expect(Codec.decodeParams("tools/list", "2025-06-18", undefined)).toEqual(Either.right(undefined))
    expect(Either.isLeft(Codec.decodeParams("tools/call", "2025-06-18", undefined))).toBe(true)
    expect(Either.isLeft(Codec.encodeParams("tools/call", "2025-06-18", undefined))).toBe(true)
  })

  it("present params are decoded, even for a method whose params are optional", () => {
    expect(Codec.decodeParams("tools/list", "2025-06-18", { cursor: "c" })).toEqual(Either.right({ cursor: "c" }))
    expect(message(Codec.decodeParams("tools/list", "2025-06-18", { cursor: 5 }))).toBe(
      "cursor: Expected string, actual 5"
    )
    expect(Codec.decodeParams("tools/call", "2025-06-18", { name: "t" })).toEqual(Either.right({ name: "t" }))
  })
})

describe("results", () => {
  it("an input_required result decodes and encodes as InputRequiredResult where the revision has it", () => {
    const inputRequired = { resultType: "input_required", inputRequests: {} }
    expect(Codec.decodeResult("tools/call", "2026-07-28", inputRequired)).toEqual(Either.right(inputRequired))
    expect(Either.isRight(Codec.encodeResult("tools/call", "2026-07-28", inputRequired))).toBe(true)
    // Whatever else it carries: it is not read as a CallToolResult.
    expect(Either.isRight(Codec.decodeResult("tools/call", "2026-07-28", { resultType: "input_required", content: 1 })))
      .toBe(true)
    // Where the revision has no InputRequiredResult, the method's result type decides.
    expect(Either.isLeft(Codec.decodeResult("tools/call", "2025-06-18", inputRequired))).toBe(true)
  })

  it("any other result, or one that is no object, decodes as the method's result type", () => {
    expect(message(Codec.decodeResult("tools/call", "2026-07-28", text))).toBe("resultType: is missing")
    expect(Codec.decodeResult("tools/call", "2026-07-28", { ...text, resultType: "complete" })).toEqual(
      Either.right({ ...text, resultType: "complete" })
    )
    expect(message(Codec.decodeResult("tools/call", "2026-07-28", { inputRequests: {} }))).toContain("content")
    for (const bad of [null, "input_required", 7]) {
      expect(Either.isLeft(Codec.decodeResult("tools/call", "2026-07-28", bad))).toBe(true)
      expect(Either.isLeft(Codec.decodeResult("tools/call", "2025-06-18", bad))).toBe(true)
    }
  })
})

describe("typed results", () => {
  it("a method named by a literal decodes to its method table type; one named at run time to unknown", () => {
    const listed = Codec.decodeResult("tools/list", "2025-11-25", { tools: [] })
    expectTypeOf(listed).toEqualTypeOf<Either.Either<Mcp.ListToolsResult, ParseResult.ParseError>>()
    expect(Either.map(listed, (r) => r.tools)).toEqual(Either.right([]))
    const roots = Codec.decodeResultLenient("roots/list", "2024-11-05", { roots: [] })
    expectTypeOf(roots).toEqualTypeOf<Either.Either<Mcp.ListRootsResult, ParseResult.ParseError>>()
    const method: string = "tools/list"
    expectTypeOf(Codec.decodeResult(method, "2025-11-25", {})).toEqualTypeOf<
      Either.Either<unknown, ParseResult.ParseError>
    >()
    expectTypeOf(Codec.decodeResultLenient(method, "2025-11-25", {})).toEqualTypeOf<
      Either.Either<unknown, ParseResult.ParseError>
    >()
  })
})

describe("leniency", () => {
  it("a value the negotiated revision accepts is read and written as that revision, not a newer one", () => {
    const withStructured = { ...text, structuredContent: { a: 1 } }
    expect(Codec.encodeResultLenient("tools/call", "2025-03-26", withStructured)).toEqual(Either.right(text))
    expect(Codec.encodeResultLenient("tools/call", "2025-06-18", withStructured)).toEqual(
      Either.right(withStructured)
    )
  })

  it("only newer revisions are tried, never older ones", () => {
    // 2024-11-05 leaves the title of a prompt reference open; from 2025-06-18 it is a string.
    const params = { ref: { type: "ref/prompt", name: "p", title: 41 }, argument: { name: "a", value: "v" } }
    expect(Either.isRight(Codec.decodeParams("completion/complete", "2024-11-05", params))).toBe(true)
    expect(message(Codec.decodeParamsLenient("completion/complete", "2025-06-18", params))).toBe(
      "ref.title: Expected string, actual 41"
    )
    expect(Either.isLeft(Codec.decodeParamsLenient("completion/complete", "2025-11-25", params))).toBe(true)
  })
})

describe("Codec.describe", () => {
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, Schema.String]))
  const all = <A, I>(schema: Schema.Schema<A, I>, u: unknown) =>
    Codec.describe(
      Either.getLeft(Schema.decodeUnknownEither(schema, { errors: "all" })(u)).pipe((o) => {
        if (o._tag === "None") throw new Error("expected a failure")
        return o.value
      })
    )

  it("describes at most 8 issues, path first, joined by '; '", () => {
    expect(all(Schema.Struct(fields(2)), {})).toBe("f0: is missing; f1: is missing")
    const many = all(Schema.Struct(fields(12)), {})
    expect(many.split("; ")).toEqual(Array.from({ length: 8 }, (_, i) => `f${i}: is missing`))
    const nested = Schema.Struct(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}`, Schema.Struct(fields(2))]))
    )
    const deep = all(nested, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}`, {}])))
    expect(deep.split("; ").slice(0, 8)).toEqual([
      "n0.f0: is missing",
      "n0.f1: is missing",
      "n1.f0: is missing",
      "n1.f1: is missing",
      "n2.f0: is missing",
      "n2.f1: is missing",
      "n3.f0: is missing",
      "n3.f1: is missing"
    ])
    expect(deep.split("; ").length).toBeLessThanOrEqual(9)
  })

  it("counts unexpected and forbidden issues, and type issues, against the bound", () => {
    const unexpected = Schema.decodeUnknownEither(Schema.Struct({ a: Schema.Number }), {
      errors: "all",
      onExcessProperty: "error"
    })({ a: 1, ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`x${i}`, i])) })
    expect(Either.isLeft(unexpected) && Codec.describe(unexpected.left).split("; ")).toEqual(
      Array.from({ length: 8 }, (_, i) => `x${i}: is unexpected, expected: "a"`)
    )
    const types = all(Schema.Struct(fields(12)), Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, i])))
    expect(types.split("; ")).toEqual(Array.from({ length: 8 }, (_, i) => `f${i}: Expected string, actual ${i}`))
    const slow = Schema.transformOrFail(Schema.String, Schema.String, {
      decode: (s) => Effect.delay(Effect.succeed(s), "1 millis"),
      encode: Effect.succeed
    })
    const forbidden = all(Schema.Struct(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i}`, slow]))), {
      ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i}`, "x"]))
    })
    expect(forbidden.split("; ").length).toBeLessThanOrEqual(8)
    expect(forbidden).toContain("cannot be be resolved synchronously")
  })

  it("a refinement's own message is kept", () => {
    const short = Schema.decodeUnknownEither(Schema.String.pipe(Schema.minLength(3, { message: () => "too short" })))(
      "a"
    )
    expect(Either.isLeft(short) && Codec.describe(short.left)).toBe("too short")
    const int = Schema.decodeUnknownEither(Schema.Struct({ n: Schema.Int }))({ n: 1.5 })
    expect(Either.isLeft(int) && Codec.describe(int.left)).toBe("n: Expected an integer, actual 1.5")
  })

  it("an issue at the top has no path; each issue is cut at 240 characters", () => {
    const top = Schema.decodeUnknownEither(Schema.String)(5)
    expect(Either.isLeft(top) && Codec.describe(top.left)).toBe("Expected string, actual 5")
    const withMessage = (m: string) => {
      const e = Schema.decodeUnknownEither(Schema.String.annotations({ message: () => m }))(5)
      return Either.isLeft(e) ? Codec.describe(e.left) : "accepted"
    }
    expect(withMessage("m".repeat(240))).toBe("m".repeat(240))
    expect(withMessage("m".repeat(241))).toBe(`${"m".repeat(240)}…`)
    expect(withMessage("m".repeat(10_000))).toBe(`${"m".repeat(240)}…`)
  })
})
