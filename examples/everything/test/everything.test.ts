import { ClientHandlers, McpClient, McpTest, Tool } from "@effect-mcp/core"
import type { JsonRpc, Mcp } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Asking from "../src/AskingTools.js"
import * as Everything from "../src/Everything.js"
import * as Media from "../src/Media.js"
import * as Prompts from "../src/Prompts.js"
import * as Resources from "../src/Resources.js"
import * as Tools from "../src/Tools.js"

/** What the client's handlers were asked. */
interface Seen {
  readonly sampling: Array<Mcp.CreateMessageRequestParams>
  readonly elicitation: Array<Mcp.ElicitRequestParams>
}

/** The elicitation answer the handler gives, per form (keyed by the first property's name). */
const answers: Record<string, Mcp.ElicitResult["content"]> = {
  username: { username: "testuser", email: "test@example.com" },
  name: { name: "Jane Smith", age: 25, score: 88, status: "inactive", verified: false },
  untitledSingle: {
    untitledSingle: "option1",
    titledSingle: "value1",
    legacyEnum: "opt1",
    untitledMulti: ["option1", "option2"],
    titledMulti: ["value1", "value2"]
  }
}

const handlers = (seen: Seen) =>
  Layer.merge(
    ClientHandlers.sampling({
      createMessage: (params) =>
        Effect.sync(() => {
          seen.sampling.push(params)
          return {
            role: "assistant",
            content: { type: "text", text: "This is a test response from the client" },
            model: "test-model",
            stopReason: "endTurn"
          }
        })
    }),
    ClientHandlers.elicitation({
      elicit: (params) =>
        Effect.sync(() => {
          seen.elicitation.push(params)
          const first = "requestedSchema" in params ? Object.keys(params.requestedSchema.properties)[0] : undefined
          const content = first === undefined ? undefined : answers[first]
          return content === undefined ? { action: "decline" } : { action: "accept", content }
        })
    })
  )

/** The two clients every behaviour is checked with. */
const clients = [
  { label: "2026-07-28 (unpinned)", revision: undefined },
  { label: "2025-11-25 (pinned)", revision: "2025-11-25" as const }
]

const server = Everything.make({ watched: { interval: "30 millis" } })

/** Connects a client to the everything server in memory, with sampling and elicitation handlers unless told not to. */
const connect = (revision: "2025-11-25" | undefined, options: { readonly handlers?: boolean } = {}) =>
  Effect.gen(function*() {
    const seen: Seen = { sampling: [], elicitation: [] }
    const client: McpClient.Options = {
      name: "everything-test",
      version: "0.0.0",
      ...(revision === undefined ? {} : { revision })
    }
    const linked = McpTest.layer(server, client)
    const context = yield* Layer.build(
      options.handlers === false ? linked : Layer.provide(linked, handlers(seen))
    )
    return { client: Context.get(context, McpClient.McpClient), seen }
  })

/** Two 2025-11-25 clients of one everything server, in memory. */
const twoClients = Effect.gen(function*() {
  const shared = Layer.succeedContext(yield* Layer.build(server))
  const client = Effect.map(
    Layer.build(McpTest.layer(shared, { name: "everything-test", version: "0.0.0", revision: "2025-11-25" })),
    Context.get(McpClient.McpClient)
  )
  return [yield* client, yield* client] as const
})

/** The notifications a client received since `collect`, and a wait until they satisfy a condition. */
interface Collected {
  readonly seen: ReadonlyArray<JsonRpc.Notification>
  readonly until: (done: (seen: ReadonlyArray<JsonRpc.Notification>) => boolean) => Effect.Effect<void>
}

interface Waiter {
  readonly done: (seen: ReadonlyArray<JsonRpc.Notification>) => boolean
  readonly deferred: Deferred.Deferred<void>
}

/**
 * Collects a client's notifications until the scope closes. It returns once the reader waits for the first one (its
 * fiber suspended on its subscription), so nothing the server sends after this is missed.
 */
const collect = (client: McpClient.McpClientService) =>
  Effect.gen(function*() {
    const seen: Array<JsonRpc.Notification> = []
    const waiters = new Set<Waiter>()
    const reader = yield* client.notifications.pipe(
      Stream.runForEach((n) =>
        Effect.suspend(() => {
          seen.push(n)
          const ready = [...waiters].filter((w) => w.done(seen))
          for (const w of ready) waiters.delete(w)
          return Effect.forEach(ready, (w) => Deferred.succeed(w.deferred, undefined), { discard: true })
        })
      ),
      Effect.forkScoped
    )
    yield* Effect.repeat(Fiber.status(reader), { until: FiberStatus.isSuspended })
    const collected: Collected = {
      seen,
      until: (done) =>
        Effect.gen(function*() {
          if (done(seen)) return
          const deferred = yield* Deferred.make<void>()
          waiters.add({ done, deferred })
          yield* Deferred.await(deferred)
        })
    }
    return collected
  })

const count = (method: string) => (seen: ReadonlyArray<JsonRpc.Notification>) =>
  seen.filter((n) => n.method === method).length

const texts = (result: Mcp.CallToolResult) => result.content.flatMap((c) => (c.type === "text" ? [c.text] : []))

const toolNames = [
  "echo",
  "divide",
  "test_simple_text",
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_tool_with_logging",
  "test_tool_with_progress",
  "test_error_handling",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  "json_schema_2020_12_tool",
  "test_reconnection",
  "test_cancellable",
  "test_cancellations"
]

describe("the media", () => {
  it("the PNG is a PNG and the WAV a RIFF/WAVE of 16-bit mono PCM", () => {
    expect([...Media.redPixelPngBytes.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10])
    const wav = Buffer.from(Media.silenceWav, "base64")
    expect(wav.subarray(0, 4).toString("ascii")).toBe("RIFF")
    expect(wav.subarray(8, 12).toString("ascii")).toBe("WAVE")
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8)
    expect(wav.readUInt16LE(22)).toBe(1)
    expect(wav.readUInt16LE(34)).toBe(16)
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44)
  })
})

for (const { label, revision } of clients) {
  describe(`everything, over a ${label} client`, () => {
    it.scoped("negotiates the revision and declares tools, resources (subscribable), prompts and completions", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        expect(client.revision).toBe(revision ?? "2026-07-28")
        expect(client.serverInfo.name).toBe("effect-mcp-everything")
        expect(client.serverCapabilities).toMatchObject({
          tools: {},
          resources: { subscribe: true },
          prompts: {},
          completions: {}
        })
      }))

    it.scoped("lists every tool, each with a description, an object input schema and a SEP-986 name", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const tools = yield* client.listTools()
        expect(tools.map((t) => t.name).sort()).toEqual([...toolNames].sort())
        for (const tool of tools) {
          expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/)
          expect(tool.description).toBeTruthy()
          expect(tool.inputSchema.type).toBe("object")
        }
        const echo = tools.find((t) => t.name === "echo")
        expect(echo?.inputSchema).toMatchObject({ required: ["text"], properties: { text: { type: "string" } } })
      }))

    it.scoped("json_schema_2020_12_tool lists its 2020-12 input schema untouched", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const tools = yield* client.listTools()
        const tool = tools.find((t) => t.name === "json_schema_2020_12_tool")
        expect(tool?.description).toBe("Tool with JSON Schema 2020-12 features")
        expect(tool?.inputSchema).toEqual(Tools.jsonSchema2020_12)
        const called = yield* client.callTool("json_schema_2020_12_tool", { name: "Ada", email: "ada@example.com" })
        expect(called.isError).toBeUndefined()
        expect(texts(called)[0]).toContain("ada@example.com")
      }))

    it.scoped("echo returns its text as one text content", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const result = yield* client.callTool("echo", { text: "hello, everything" })
        expect(result.content).toEqual([{ type: "text", text: "hello, everything" }])
        expect(result.isError).toBeUndefined()
      }))

    it.scoped("divide: structured output, and a typed failure our client decodes with the failure schema", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        // Listing first, so the client knows divide's outputSchema and checks every structuredContent against it.
        const divide = (yield* client.listTools()).find((t) => t.name === "divide")
        expect(divide?.outputSchema).toMatchObject({ required: ["quotient"] })
        const ok = yield* client.callTool("divide", { a: 7, b: 2 })
        expect(ok.structuredContent).toEqual({ quotient: 3.5 })
        const failed = yield* client.callTool("divide", { a: 7, b: 0 })
        expect(failed.isError).toBe(true)
        expect(failed.structuredContent).toBeUndefined()
        expect(JSON.parse(texts(failed)[0]!)).toEqual({
          _tag: "DivisionByZero",
          dividend: 7,
          message: "cannot divide 7 by zero"
        })
        const typed = Tool.decodeFailure(Tools.DivisionByZero)(failed)
        expect(Option.isSome(typed) && typed.value).toBeInstanceOf(Tools.DivisionByZero)
        expect(Option.getOrThrow(typed)).toMatchObject({ dividend: 7, message: "cannot divide 7 by zero" })
        expect(Option.isNone(Tool.decodeFailure(Tools.DivisionByZero)(ok))).toBe(true)
      }))

    it.scoped("the content tools return text, image, audio, an embedded resource and all of them mixed", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const simple = yield* client.callTool("test_simple_text")
        expect(simple.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }])
        const image = yield* client.callTool("test_image_content", {})
        expect(image.content).toEqual([{ type: "image", data: Media.redPixelPng, mimeType: "image/png" }])
        const audio = yield* client.callTool("test_audio_content", {})
        expect(audio.content).toEqual([{ type: "audio", data: Media.silenceWav, mimeType: "audio/wav" }])
        const embedded = yield* client.callTool("test_embedded_resource", {})
        expect(embedded.content).toEqual([{
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content."
          }
        }])
        const mixed = yield* client.callTool("test_multiple_content_types", {})
        expect(mixed.content.map((c) => c.type)).toEqual(["text", "image", "resource"])
        expect(mixed.content[0]).toEqual({ type: "text", text: "Multiple content types test:" })
        expect(mixed.content[2]).toEqual({
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: "{\"test\":\"data\",\"value\":123}"
          }
        })
      }))

    it.scoped("test_error_handling is an isError result with its message", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const result = yield* client.callTool("test_error_handling", {})
        expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: Tools.errorMessage }] })
      }))

    it.live("test_tool_with_progress reports 0, 50 and 100 of 100 against the request's token", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const events = yield* client.callToolStream("test_tool_with_progress", {}).pipe(Stream.runCollect)
        const progress = Chunk.toArray(events).flatMap((e) => (e._tag === "Progress" ? [e.progress] : []))
        expect(progress.map((p) => [p.progress, p.total])).toEqual([[0, 100], [50, 100], [100, 100]])
        const last = Chunk.last(events)
        expect(last._tag === "Some" && last.value._tag).toBe("Result")
      }).pipe(Effect.scoped))

    it.live("test_sampling asks the client's model with the prompt and returns its answer", () =>
      Effect.gen(function*() {
        const { client, seen } = yield* connect(revision)
        const result = yield* client.callTool("test_sampling", { prompt: "Test prompt for sampling" })
        expect(texts(result)).toEqual(["LLM response: This is a test response from the client"])
        expect(seen.sampling).toHaveLength(1)
        expect(seen.sampling[0]).toMatchObject({
          messages: [{ role: "user", content: { type: "text", text: "Test prompt for sampling" } }],
          maxTokens: 100
        })
      }).pipe(Effect.scoped))

    it.live("test_sampling and test_elicitation are errors when the client cannot answer", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision, { handlers: false })
        const sampled = yield* Effect.either(client.callTool("test_sampling", { prompt: "p" }))
        const elicited = yield* Effect.either(client.callTool("test_elicitation", { message: "m" }))
        for (const outcome of [sampled, elicited]) {
          // An isError result, never a success.
          expect(Either.isRight(outcome) && outcome.right.isError).toBe(true)
        }
      }).pipe(Effect.scoped))

    it.live("test_elicitation asks for a username and an email and reports the answer", () =>
      Effect.gen(function*() {
        const { client, seen } = yield* connect(revision)
        const result = yield* client.callTool("test_elicitation", { message: "Please provide your information" })
        expect(texts(result)).toEqual([
          "User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"
        ])
        expect(seen.elicitation).toHaveLength(1)
        expect(seen.elicitation[0]).toMatchObject({
          message: "Please provide your information",
          requestedSchema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" }
            },
            required: ["username", "email"]
          }
        })
      }).pipe(Effect.scoped))

    it.live("test_elicitation_sep1034_defaults sends a default for every primitive type", () =>
      Effect.gen(function*() {
        const { client, seen } = yield* connect(revision)
        const result = yield* client.callTool("test_elicitation_sep1034_defaults", {})
        expect(texts(result)[0]).toMatch(/^Elicitation completed: action=accept, content=\{"name":"Jane Smith"/)
        const schema = seen.elicitation[0] as { requestedSchema: { properties: Record<string, unknown> } }
        expect(schema.requestedSchema.properties).toEqual({
          name: { type: "string", description: "Your name", default: "John Doe" },
          age: { type: "integer", description: "Your age", default: 30 },
          score: { type: "number", description: "Your score", default: 95.5 },
          status: {
            type: "string",
            description: "Your status",
            enum: ["active", "inactive", "pending"],
            default: "active"
          },
          verified: { type: "boolean", description: "Whether you are verified", default: true }
        })
      }).pipe(Effect.scoped))

    it.live("test_elicitation_sep1330_enums sends all five enum shapes", () =>
      Effect.gen(function*() {
        const { client, seen } = yield* connect(revision)
        const result = yield* client.callTool("test_elicitation_sep1330_enums", {})
        expect(texts(result)[0]).toMatch(/^Elicitation completed: action=accept, content=\{"untitledSingle":"option1"/)
        const sent = seen.elicitation[0] as { requestedSchema: { properties: Record<string, unknown> } }
        expect(sent.requestedSchema.properties).toEqual(Asking.enumsSchema.properties)
      }).pipe(Effect.scoped))

    it.live("test_reconnection answers after its wait", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const result = yield* client.callTool("test_reconnection", {})
        expect(texts(result)[0]).toMatch(/^Reconnection test completed successfully/)
      }).pipe(Effect.scoped))

    it.live("a cancelled test_cancellable is interrupted on the server, and test_cancellations counts it", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const cancellations = (args: { readonly atLeast?: number }) =>
          Effect.map(client.callTool("test_cancellations", args), (r) => JSON.parse(texts(r)[0]!))
        expect(yield* cancellations({})).toEqual({ cancelled: 0 })
        for (const n of [1, 2]) {
          // The first progress update says the handler runs; the stream ends there, which cancels the call.
          const seen = yield* client.callToolStream("test_cancellable", {}).pipe(Stream.take(1), Stream.runCollect)
          expect(Chunk.toArray(seen).map((e) => e._tag)).toEqual(["Progress"])
          expect(yield* cancellations({ atLeast: n })).toEqual({ cancelled: n })
        }
        expect(texts(yield* client.callTool("echo", { text: "after" }))).toEqual(["after"])
      }).pipe(Effect.scoped))

    it.scoped("lists the direct resources and the template", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const resources = yield* client.listResources()
        expect(resources.map((r) => r.uri).sort()).toEqual([
          "test://static-binary",
          "test://static-text",
          "test://watched-resource"
        ])
        const templates = yield* client.listResourceTemplates()
        expect(templates).toEqual([expect.objectContaining({
          uriTemplate: "test://template/{id}/data",
          mimeType: "application/json"
        })])
      }))

    it.scoped("reads the static text, the static binary and the template with its id substituted", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const text = yield* client.readResource("test://static-text")
        expect(text.contents).toEqual([{
          uri: "test://static-text",
          mimeType: "text/plain",
          text: "This is the content of the static text resource."
        }])
        const binary = yield* client.readResource("test://static-binary")
        expect(binary.contents).toEqual([{
          uri: "test://static-binary",
          mimeType: "image/png",
          blob: Media.redPixelPng
        }])
        const templated = yield* client.readResource("test://template/123/data")
        expect(templated.contents).toEqual([{
          uri: "test://template/123/data",
          mimeType: "application/json",
          text: JSON.stringify({ id: "123", templateTest: true, data: "Data for ID: 123" })
        }])
      }))

    it.scoped("an unknown resource is a JSON-RPC error naming its URI, never empty contents", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const missing = yield* Effect.either(client.readResource("test://nonexistent-resource-for-conformance-testing"))
        expect(Either.isLeft(missing)).toBe(true)
        expect(Either.isLeft(missing) && missing.left).toMatchObject({
          uri: "test://nonexistent-resource-for-conformance-testing"
        })
      }))

    it.scoped("lists the prompts with their arguments", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const prompts = yield* client.listPrompts()
        expect(prompts.map((p) => p.name).sort()).toEqual([
          "test_prompt_with_arguments",
          "test_prompt_with_embedded_resource",
          "test_prompt_with_image",
          "test_simple_prompt"
        ])
        for (const prompt of prompts) expect(prompt.description).toBeTruthy()
        const withArgs = prompts.find((p) => p.name === "test_prompt_with_arguments")
        expect(withArgs?.arguments).toEqual([
          { name: "arg1", required: true, description: "First test argument" },
          { name: "arg2", required: true, description: "Second test argument" }
        ])
        const embedded = prompts.find((p) => p.name === "test_prompt_with_embedded_resource")
        expect(embedded?.arguments).toEqual([
          { name: "resourceUri", required: true, description: "URI of the resource to embed" }
        ])
      }))

    it.scoped("gets every prompt with the scenarios' messages", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const simple = yield* client.getPrompt("test_simple_prompt")
        expect(simple.messages).toEqual([
          { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }
        ])
        const withArgs = yield* client.getPrompt("test_prompt_with_arguments", { arg1: "hello", arg2: "world" })
        expect(withArgs.messages).toEqual([
          { role: "user", content: { type: "text", text: "Prompt with arguments: arg1='hello', arg2='world'" } }
        ])
        const embedded = yield* client.getPrompt("test_prompt_with_embedded_resource", {
          resourceUri: "test://example-resource"
        })
        expect(embedded.messages).toEqual([
          {
            role: "user",
            content: {
              type: "resource",
              resource: {
                uri: "test://example-resource",
                mimeType: "text/plain",
                text: "Embedded resource content for testing."
              }
            }
          },
          { role: "user", content: { type: "text", text: "Please process the embedded resource above." } }
        ])
        const image = yield* client.getPrompt("test_prompt_with_image")
        expect(image.messages).toEqual([
          { role: "user", content: { type: "image", data: Media.redPixelPng, mimeType: "image/png" } },
          { role: "user", content: { type: "text", text: "Please analyze the image above." } }
        ])
        const missingArg = yield* Effect.either(client.getPrompt("test_prompt_with_arguments", { arg1: "x" }))
        expect(Either.isLeft(missingArg)).toBe(true)
      }))

    it.scoped("completes prompt arguments and the template's id by prefix", () =>
      Effect.gen(function*() {
        const { client } = yield* connect(revision)
        const prompt = yield* client.complete({
          ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
          argument: { name: "arg1", value: "par" }
        })
        expect(prompt.completion.values).toEqual(["paris", "park", "party"])
        const all = yield* client.complete({
          ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
          argument: { name: "arg2", value: "" }
        })
        expect(all.completion.values).toEqual(Prompts.words)
        const template = yield* client.complete({
          ref: { type: "ref/resource", uri: "test://template/{id}/data" },
          argument: { name: "id", value: "12" }
        })
        expect(template.completion.values).toEqual(["123", "1234"])
        const none = yield* client.complete({
          ref: { type: "ref/prompt", name: "test_simple_prompt" },
          argument: { name: "anything", value: "x" }
        })
        expect(none.completion.values).toEqual([])
      }))
  })
}

describe("everything, handshake-only behaviour (2025-11-25)", () => {
  const messages = (seen: ReadonlyArray<JsonRpc.Notification>) =>
    seen.flatMap((n) => n.method === "notifications/message" ? [[n.params?.level, n.params?.data]] : [])
  const logged = count("notifications/message")
  const updated = count("notifications/resources/updated")

  it.live("logging/setLevel is accepted and test_tool_with_logging sends its three info messages in order", () =>
    Effect.gen(function*() {
      const { client } = yield* connect("2025-11-25")
      yield* client.setLoggingLevel("debug")
      const notes = yield* collect(client)
      const result = yield* client.callTool("test_tool_with_logging", {})
      expect(texts(result)).toEqual(["Tool with logging executed successfully"])
      yield* notes.until((seen) => logged(seen) === 3)
      expect(messages(notes.seen)).toEqual([
        ["info", "Tool execution started"],
        ["info", "Tool processing data"],
        ["info", "Tool execution completed"]
      ])
    }).pipe(Effect.scoped))

  it.live("a log level above info silences test_tool_with_logging; info lets it through again", () =>
    Effect.gen(function*() {
      const { client } = yield* connect("2025-11-25")
      const notes = yield* collect(client)
      yield* client.setLoggingLevel("error")
      yield* client.callTool("test_tool_with_logging", {})
      // The watched resource's first update is the mark: everything the call sent arrived before it.
      yield* client.subscribe(Resources.watchedUri)
      yield* notes.until((seen) => updated(seen) >= 1)
      const mark = notes.seen.findIndex((n) => n.method === "notifications/resources/updated")
      expect(messages(notes.seen.slice(0, mark))).toEqual([])
      yield* client.unsubscribe(Resources.watchedUri)
      yield* client.setLoggingLevel("info")
      yield* client.callTool("test_tool_with_logging", {})
      yield* notes.until((seen) => logged(seen) === 3)
      expect(messages(notes.seen).map(([level]) => level)).toEqual(["info", "info", "info"])
    }).pipe(Effect.scoped))

  it.live("the watched resource changes on its timer and subscribers hear about it until they unsubscribe", () =>
    Effect.gen(function*() {
      // The witness stays subscribed: its updates show that the timer goes on after the other client unsubscribed.
      const [client, witness] = yield* twoClients
      const notes = yield* collect(client)
      const witnessed = yield* collect(witness)
      yield* client.setLoggingLevel("info")
      const before = yield* client.readResource(Resources.watchedUri)
      yield* witness.subscribe(Resources.watchedUri)
      yield* client.subscribe(Resources.watchedUri)
      yield* notes.until((seen) => updated(seen) >= 2)
      const updates = notes.seen.filter((n) => n.method === "notifications/resources/updated")
      expect(updates.map((n) => n.params?.uri)).toEqual([Resources.watchedUri, Resources.watchedUri])
      const after = yield* client.readResource(Resources.watchedUri)
      const [first] = before.contents
      const [second] = after.contents
      expect(first && "text" in first ? first.text : "").toMatch(/^Watched resource content, version \d+$/)
      expect(second && "text" in second ? second.text : "").not.toBe(first && "text" in first ? first.text : "")
      expect(second?.mimeType).toBe("text/plain")
      yield* client.unsubscribe(Resources.watchedUri)
      // The first message of a logging call marks the time after the unsubscribe; the witness then hears two more
      // updates; a second call's messages mark the end. In between, the client that unsubscribed hears of none.
      yield* client.callTool("test_tool_with_logging", {})
      const heard = updated(witnessed.seen)
      yield* witnessed.until((seen) => updated(seen) >= heard + 2)
      yield* client.callTool("test_tool_with_logging", {})
      yield* notes.until((seen) => logged(seen) === 6)
      const start = notes.seen.findIndex((n) => n.method === "notifications/message")
      expect(updated(notes.seen.slice(start))).toBe(0)
    }).pipe(Effect.scoped))
})

describe("everything, subscriptions on 2026-07-28", () => {
  it.live("subscriptions/listen for the watched resource carries its updates", () =>
    Effect.gen(function*() {
      const { client } = yield* connect(undefined)
      const updates = yield* client.listen({ resourceSubscriptions: [Resources.watchedUri] }).pipe(
        Stream.filter((n) => n.method === "notifications/resources/updated"),
        Stream.take(2),
        Stream.runCollect
      )
      for (const n of updates) expect(n.params).toMatchObject({ uri: Resources.watchedUri })
    }).pipe(Effect.scoped))
})
