/**
 * Typed calls: a tool or prompt contract shared by a server and its client. The client's arguments are encoded with
 * the input schema, the result decoded with the output schema, a declared failure decoded into its type; any other
 * error result is a ToolError, and a result the contract does not describe a ProtocolViolation. Over a 2025-11-25
 * handshake and under 2026-07-28.
 */
import { type Errors, type McpClient, McpServer, Tool } from "@effect-mcp/core"
import type { Mcp, McpError, Revision } from "@effect-mcp/schema"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { connect } from "./helpers.js"

class UnknownPerson extends Schema.TaggedError<UnknownPerson>()("UnknownPerson", { name: Schema.String }) {}

const Greeting = Schema.Struct({ text: Schema.String, since: Schema.DateFromString })

/** The contract both sides share: a Date crosses as text both ways. */
const Greet = Tool.contract({
  name: "greet",
  input: Schema.Struct({ name: Schema.String, since: Schema.DateFromString }),
  output: Greeting,
  failure: UnknownPerson
})

/** A content tool's contract, with no output or failure schema. */
const Shout = Tool.contract({ name: "shout", input: Schema.Struct({ text: Schema.String }) })

class UnknownLanguage extends Schema.TaggedError<UnknownLanguage>()("UnknownLanguage", {
  language: Schema.String
}) {}

/** A prompt whose arguments are not all strings in their type: the count crosses as text. */
const Poem = {
  name: "poem",
  input: Schema.Struct({ language: Schema.String, lines: Schema.NumberFromString }),
  failure: UnknownLanguage
}

const server = Layer.mergeAll(
  McpServer.tool({
    ...Greet,
    handler: ({ name, since }) =>
      name === "Nobody"
        ? Effect.fail(new UnknownPerson({ name }))
        : name === "Error"
        ? Effect.fail(new Tool.ToolError({ message: "something broke" }))
        : Effect.succeed({ text: `Hello ${name}`, since: new Date(since.getTime() + 86_400_000) })
  }),
  McpServer.tool({ ...Shout, handler: ({ text }) => Effect.succeed(text.toUpperCase()) }),
  McpServer.tool({
    name: "drifted",
    input: Schema.Struct({}),
    output: Schema.Struct({ text: Schema.Number }),
    handler: () => Effect.succeed({ text: 42 })
  }),
  McpServer.resourceTemplate({
    uriTemplate: "people://{name}",
    name: "person",
    failure: UnknownPerson,
    handler: (vars) =>
      vars.name === "nobody" ? Effect.fail(new UnknownPerson({ name: vars.name })) : Effect.succeed(`${vars.name}`)
  }),
  McpServer.prompt({
    ...Poem,
    handler: ({ language, lines }) =>
      language === "klingon"
        ? Effect.fail(new UnknownLanguage({ language }))
        : Effect.succeed(`Write ${lines + 1} lines in ${language}`)
  })
).pipe(Layer.provideMerge(McpServer.layer({ name: "typed-calls", version: "1.0.0" })))

const eras: ReadonlyArray<Revision.Revision> = ["2025-11-25", "2026-07-28"]

/** Typed calls, made but never run: what their types are is checked by tsc (`tsc -b tsconfig.check.json`). */
const calls = (client: McpClient.McpClientService) => ({
  greet: client.call(Greet, { name: "Ada", since: new Date() }),
  shout: client.call(Shout, { text: "hi" }),
  poem: client.getPrompt(Poem, { language: "en", lines: 2 }),
  byName: client.getPrompt("poem", { language: "en" }),
  // @ts-expect-error the input is the contract's: `since` is missing
  wrongInput: client.call(Greet, { name: "Ada" }),
  // @ts-expect-error a prompt's typed arguments are its schema's type (`lines` is a number)
  wrongArgs: client.getPrompt(Poem, { language: "en", lines: "2" })
})
type Calls = ReturnType<typeof calls>

describe("the types of typed calls", () => {
  it("come from the contract", () => {
    expectTypeOf<Calls["greet"]>().toEqualTypeOf<
      Effect.Effect<typeof Greeting.Type, UnknownPerson | Tool.ToolError | McpClient.McpClientError>
    >()
    expectTypeOf<Calls["shout"]>().toEqualTypeOf<
      Effect.Effect<Mcp.CallToolResult, Tool.ToolError | McpClient.McpClientError>
    >()
    expectTypeOf<Calls["poem"]>().toEqualTypeOf<
      Effect.Effect<Mcp.GetPromptResult, UnknownLanguage | McpClient.McpClientError>
    >()
    expectTypeOf<Calls["byName"]>().toEqualTypeOf<Effect.Effect<Mcp.GetPromptResult, McpClient.McpClientError>>()
    expect(calls).toBeTypeOf("function")
  })
})

for (const revision of eras) {
  describe(`typed calls, ${revision}`, () => {
    const client = connect(server, { client: { name: "t", version: "0", revision } })

    it.scoped("a tool's input is encoded and its output decoded with the contract's schemas", () =>
      Effect.gen(function*() {
        const c = yield* client
        expect(c.revision).toBe(revision)
        const greeting = yield* c.call(Greet, { name: "Ada", since: new Date("2026-07-28T00:00:00.000Z") })
        expect(greeting).toEqual({ text: "Hello Ada", since: new Date("2026-07-29T00:00:00.000Z") })
      }))

    it.scoped("a declared failure comes back as its type, any other error result as a ToolError", () =>
      Effect.gen(function*() {
        const c = yield* client
        const failure = yield* Effect.flip(c.call(Greet, { name: "Nobody", since: new Date(0) }))
        expect(failure).toBeInstanceOf(UnknownPerson)
        expect(failure).toMatchObject({ _tag: "UnknownPerson", name: "Nobody" })
        const toolError = yield* Effect.flip(c.call(Greet, { name: "Error", since: new Date(0) }))
        expect(toolError).toBeInstanceOf(Tool.ToolError)
        expect(toolError.message).toBe("something broke")
      }))

    it.scoped("a content tool returns its result", () =>
      Effect.gen(function*() {
        const c = yield* client
        const result = yield* c.call(Shout, { text: "hi" })
        expect(result.content).toEqual([{ type: "text", text: "HI" }])
      }))

    it.scoped("a result the contract does not describe is a ProtocolViolation", () =>
      Effect.gen(function*() {
        const c = yield* client
        const Drifted = Tool.contract({
          name: "drifted",
          input: Schema.Struct({}),
          output: Schema.Struct({ text: Schema.String })
        })
        const error = yield* Effect.flip(c.call(Drifted, {}))
        expect(error._tag).toBe("ProtocolViolation")
        expect((error as Errors.ProtocolViolation).reason).toContain("output schema rejects")
      }))

    it.scoped("a template's declared failure travels as a -32000 error that carries the value", () =>
      Effect.gen(function*() {
        const c = yield* client
        expect((yield* c.readResource("people://ada")).contents).toEqual([{ uri: "people://ada", text: "ada" }])
        const error = (yield* Effect.flip(c.readResource("people://nobody"))) as McpError.McpError
        expect(error.code).toBe(-32000)
        expect("data" in error ? error.data : undefined).toEqual({
          "effect-mcp/failure": { _tag: "UnknownPerson", name: "nobody" }
        })
      }))

    it.scoped("a prompt's arguments are encoded and its declared failure decoded", () =>
      Effect.gen(function*() {
        const c = yield* client
        const result = yield* c.getPrompt(Poem, { language: "Latin", lines: 2 })
        expect(result.messages[0]!.content).toEqual({ type: "text", text: "Write 3 lines in Latin" })
        const failure = yield* Effect.flip(c.getPrompt(Poem, { language: "klingon", lines: 1 }))
        expect(failure).toBeInstanceOf(UnknownLanguage)
        // The untyped call sees the JSON-RPC error that carries it.
        const raw = yield* Effect.flip(c.getPrompt("poem", { language: "klingon", lines: "1" }))
        expect((raw as McpError.McpError).code).toBe(-32000)
        expect((raw as McpError.McpError).message).toBe(`{"language":"klingon","_tag":"UnknownLanguage"}`)
      }))
  })
}
