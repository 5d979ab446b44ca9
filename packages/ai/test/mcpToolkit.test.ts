/**
 * McpToolkit: the tools of an MCP server, through our client (in memory) and through a host over two servers, as an
 * @effect/ai Toolkit that a LanguageModel (a scripted one) calls. The model sees each tool's own inputSchema; results,
 * isError results and failed calls reach it; progress reaches the caller's sink; interrupting the model call
 * cancels the MCP call on the server.
 */
import { McpToolkit, ScriptedLanguageModel } from "@effect-mcp/ai"
import { McpClient, McpServer, McpTest, RequestContext, Tool } from "@effect-mcp/core"
import { McpHost } from "@effect-mcp/host"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as AiTool from "@effect/ai/Tool"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** What the server's `block` tool saw: that it started, and that it was interrupted. */
interface Blocked {
  readonly started: Deferred.Deferred<void>
  readonly interrupted: Deferred.Deferred<void>
}

/** A server of five tools: `echo` (structured), `fail` (isError), `count` (progress), `block` (never ends), `a.b/c`. */
const serverLayer = (name: string, blocked: Blocked) =>
  Layer.mergeAll(
    McpServer.tool({
      name: "echo",
      description: `Echoes text (${name})`,
      annotations: { title: "Echo", readOnlyHint: true },
      input: Schema.Struct({ text: Schema.String.annotations({ description: "What to echo" }) }),
      output: Schema.Struct({ echoed: Schema.String, by: Schema.String }),
      handler: ({ text }) => Effect.succeed({ echoed: text, by: name })
    }),
    McpServer.tool({
      name: "fail",
      input: Tool.NoInput,
      handler: () => Effect.fail(new Tool.ToolError({ message: "the tool is out of order" }))
    }),
    McpServer.tool({
      name: "count",
      input: Schema.Struct({ to: Schema.Int }),
      handler: ({ to }) =>
        Effect.gen(function*() {
          for (let i = 1; i <= to; i++) yield* RequestContext.progress(i, to, `step ${i}`)
          return `counted to ${to}`
        })
    }),
    McpServer.tool({
      name: "block",
      input: Tool.NoInput,
      handler: () =>
        Deferred.succeed(blocked.started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(blocked.interrupted, undefined)),
          Effect.as("never")
        )
    }),
    McpServer.tool({ name: "a.b/c", input: Tool.NoInput, handler: () => Effect.succeed("dotted") })
  ).pipe(Layer.provideMerge(McpServer.layer({ name, version: "1.0.0" })))

const makeBlocked = Effect.all({ started: Deferred.make<void>(), interrupted: Deferred.make<void>() })

/** A client connected in memory to the server (at `revision` when given), in the test's scope. */
const connect = (blocked: Blocked, revision?: McpClient.Options["revision"]) =>
  Layer.build(
    McpTest.layer(serverLayer("one", blocked), {
      ...McpTest.defaultClient,
      ...(revision === undefined ? {} : { revision })
    })
  ).pipe(Effect.map(Context.get(McpClient.McpClient)))

/** One model call with `toolkit`, the model playing `turns`. */
const generate = (
  toolkit: McpToolkit.McpToolkit,
  turns: ReadonlyArray<ScriptedLanguageModel.Turn>,
  prompt: Prompt.RawInput = "go"
) =>
  LanguageModel.generateText({ prompt, toolkit: toolkit.withHandler }).pipe(
    Effect.provide(ScriptedLanguageModel.layer(turns))
  )

/** A turn that calls one tool. */
const calling = (name: string, params: unknown): ScriptedLanguageModel.Turn => () =>
  Effect.succeed([ScriptedLanguageModel.toolCall("call-1", name, params), ScriptedLanguageModel.finish("tool-calls")])

describe("McpToolkit.fromClient", () => {
  it.scoped("offers every tool under a provider-safe name, described by its own inputSchema, title and hints", () =>
    Effect.gen(function*() {
      const client = yield* connect(yield* makeBlocked)
      const listed = yield* client.listTools()
      const toolkit = yield* McpToolkit.fromClient(client)
      expect(Object.keys(toolkit.withHandler.tools).sort()).toEqual(["a_b_c", "block", "count", "echo", "fail"])
      expect(toolkit.names.get("a_b_c")).toBe("a.b/c")
      const echo = toolkit.withHandler.tools.echo!
      expect(AiTool.getJsonSchema(echo)).toEqual(listed.find((t) => t.name === "echo")!.inputSchema)
      expect(echo.description).toBe("Echoes text (one)")
      expect(Context.getOption(echo.annotations, AiTool.Title)).toEqual(Option.some("Echo"))
      expect(Context.get(echo.annotations, AiTool.Readonly)).toBe(true)
      const only = yield* McpToolkit.fromClient(client, { include: (name) => name === "echo" })
      expect(Object.keys(only.withHandler.tools)).toEqual(["echo"])
    }))

  it.scoped("lets a model call a tool and read its result in the next turn", () =>
    Effect.gen(function*() {
      const client = yield* connect(yield* makeBlocked)
      const toolkit = yield* McpToolkit.fromClient(client)
      const seen = yield* Ref.make<ReadonlyArray<unknown>>([])
      const turns: ReadonlyArray<ScriptedLanguageModel.Turn> = [
        calling("echo", { text: "hello" }),
        ({ prompt }) =>
          Effect.as(
            Ref.set(seen, ScriptedLanguageModel.toolResults(prompt).map((r) => r.result)),
            [ScriptedLanguageModel.text("done"), ScriptedLanguageModel.finish("stop")]
          )
      ]
      const model = yield* ScriptedLanguageModel.make(turns)
      const first = yield* model.generateText({ prompt: "echo hello", toolkit: toolkit.withHandler })
      expect(first.toolResults).toHaveLength(1)
      const [result] = first.toolResults
      expect(result!.isFailure).toBe(false)
      expect(result!.result).toEqual({
        content: [{ type: "text", text: JSON.stringify({ echoed: "hello", by: "one" }) }],
        structuredContent: { echoed: "hello", by: "one" }
      })
      const next = Prompt.merge(Prompt.make("echo hello"), Prompt.fromResponseParts(first.content))
      const second = yield* model.generateText({ prompt: next, toolkit: toolkit.withHandler })
      expect(second.text).toBe("done")
      expect(yield* Ref.get(seen)).toEqual([result!.encodedResult])
    }))

  it.scoped("returns an isError result to the model as a ToolCallFailed with the tool's text", () =>
    Effect.gen(function*() {
      const client = yield* connect(yield* makeBlocked)
      const toolkit = yield* McpToolkit.fromClient(client)
      const response = yield* generate(toolkit, [calling("fail", {})])
      const [result] = response.toolResults
      expect(result!.isFailure).toBe(true)
      expect(result!.result).toBeInstanceOf(McpToolkit.ToolCallFailed)
      expect(result!.result).toMatchObject({ tool: "fail", reason: "ToolError", message: "the tool is out of order" })
    }))

  it.scoped("returns a call the server refused to the model as a ToolCallFailed naming the error", () =>
    Effect.gen(function*() {
      // Before 2025-11-25 invalid arguments are a JSON-RPC error (-32602), not an isError result.
      const client = yield* connect(yield* makeBlocked, "2025-06-18")
      const toolkit = yield* McpToolkit.fromClient(client)
      const response = yield* generate(toolkit, [calling("count", { to: "three" })])
      const [result] = response.toolResults
      expect(result!.isFailure).toBe(true)
      expect(result!.result).toMatchObject({ tool: "count", reason: "CallFailed", error: "InvalidParams" })
      expect((result!.result as McpToolkit.ToolCallFailed).message).toMatch(/Invalid arguments for tool count/)
    }))

  it.scoped("sends each progress update of a call to the ToolProgress sink of the caller", () =>
    Effect.gen(function*() {
      const client = yield* connect(yield* makeBlocked)
      const toolkit = yield* McpToolkit.fromClient(client)
      const updates = yield* Ref.make<ReadonlyArray<McpToolkit.ProgressUpdate>>([])
      const response = yield* generate(toolkit, [calling("count", { to: 3 })]).pipe(
        McpToolkit.withProgress((update) => Ref.update(updates, (all) => [...all, update]))
      )
      expect(response.toolResults[0]!.result).toEqual({ content: [{ type: "text", text: "counted to 3" }] })
      const got = yield* Ref.get(updates)
      expect(got.map((u) => [u.tool, u.target, u.progress.progress, u.progress.message])).toEqual([
        ["count", "count", 1, "step 1"],
        ["count", "count", 2, "step 2"],
        ["count", "count", 3, "step 3"]
      ])
    }))

  it.scoped("cancels the MCP call on the server when the model call is interrupted", () =>
    Effect.gen(function*() {
      const blocked = yield* makeBlocked
      const client = yield* connect(blocked)
      const toolkit = yield* McpToolkit.fromClient(client)
      const fiber = yield* Effect.fork(generate(toolkit, [calling("block", {})]))
      yield* Deferred.await(blocked.started)
      expect(client.stats().pending).toBe(1)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(blocked.interrupted)
      expect(client.stats().pending).toBe(0)
    }))
})

describe("McpToolkit.fromHost", () => {
  it.scoped("offers the catalogue's tools by their prefixed names and routes each call to its server", () =>
    Effect.gen(function*() {
      const blocked = yield* makeBlocked
      const host = yield* McpHost.make({
        servers: {
          left: { transport: McpTest.serverTransport(serverLayer("left", blocked)) },
          right: { transport: McpTest.serverTransport(serverLayer("right", blocked)) }
        }
      })
      yield* host.events.pipe(
        Stream.filter((e) => e._tag === "ServerUp"),
        Stream.take(2),
        Stream.runDrain
      )
      const toolkit = yield* McpToolkit.fromHost(host, { include: (name) => name.endsWith("echo") })
      expect(Object.keys(toolkit.withHandler.tools).sort()).toEqual(["left__echo", "right__echo"])
      const response = yield* generate(toolkit, [calling("right__echo", { text: "hi" })])
      expect(response.toolResults[0]!.result).toMatchObject({ structuredContent: { echoed: "hi", by: "right" } })
    }))

  it.scoped("returns a call to a server that is down to the model as a ToolCallFailed", () =>
    Effect.gen(function*() {
      const blocked = yield* makeBlocked
      const host = yield* McpHost.make({
        servers: { only: { transport: McpTest.serverTransport(serverLayer("only", blocked)) } }
      })
      yield* host.events.pipe(Stream.filter((e) => e._tag === "ServerUp"), Stream.take(1), Stream.runDrain)
      const toolkit = yield* McpToolkit.fromHost(host)
      const fiber = yield* Effect.fork(generate(toolkit, [calling("only__block", {})]))
      yield* Deferred.await(blocked.started)
      yield* host.restart("only")
      const response = yield* Fiber.join(fiber)
      const [result] = response.toolResults
      expect(result!.isFailure).toBe(true)
      expect(result!.result).toMatchObject({ tool: "only__block", reason: "CallFailed", error: "ServerUnavailable" })
    }))
})
