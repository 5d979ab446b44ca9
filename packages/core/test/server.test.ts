import { McpServer, RequestContext, Tool } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { connect, rawPeer } from "./helpers.js"

const info = { name: "server-test", version: "1.0.0" }
const handshake = { client: { name: "c", version: "1", revision: "2025-11-25" as const } }
const serverOf = <E, R>(defs: Layer.Layer<never, E, R>, options: Partial<McpServer.Options> = {}) =>
  defs.pipe(Layer.provideMerge(McpServer.layer({ ...info, ...options })))

describe("tools", () => {
  it.scoped("input, output and failure schemas become JSON Schema, structuredContent and isError results", () =>
    Effect.gen(function*() {
      class Overdrawn extends Schema.TaggedError<Overdrawn>()("Overdrawn", { balance: Schema.Number }) {}
      const Withdraw = McpServer.tool({
        name: "withdraw",
        title: "Withdraw money",
        description: "Takes money out",
        annotations: { destructiveHint: true },
        input: Schema.Struct({ amount: Schema.Number.annotations({ description: "how much" }) }),
        output: Schema.Struct({ balance: Schema.Number }),
        failure: Overdrawn,
        handler: (
          { amount }
        ) => (amount > 100 ? Effect.fail(new Overdrawn({ balance: 100 })) : Effect.succeed({ balance: 100 - amount }))
      })
      const client = yield* connect(serverOf(Withdraw))
      const [tool] = yield* client.listTools()
      expect(tool).toMatchObject({
        name: "withdraw",
        title: "Withdraw money",
        annotations: { destructiveHint: true },
        inputSchema: {
          type: "object",
          required: ["amount"],
          properties: { amount: { type: "number", description: "how much" } }
        },
        outputSchema: { type: "object", required: ["balance"] }
      })
      const ok = yield* client.callTool("withdraw", { amount: 30 })
      expect(ok.structuredContent).toEqual({ balance: 70 })
      expect(ok.content).toEqual([{ type: "text", text: JSON.stringify({ balance: 70 }) }])
      const failed = yield* client.callTool("withdraw", { amount: 500 })
      expect(failed.isError).toBe(true)
      // The outputSchema binds every structuredContent, so the failure travels under _meta (see toolFailure.test.ts).
      expect(failed.structuredContent).toBeUndefined()
      expect(Option.getOrThrow(Tool.decodeFailure(Overdrawn)(failed))).toMatchObject({ balance: 100 })
    }))

  it.scoped("McpError failures are JSON-RPC errors; ToolError is an isError result", () =>
    Effect.gen(function*() {
      const Strict = McpServer.tool({
        name: "strict",
        input: Schema.Struct({ mode: Schema.String }),
        handler: ({ mode }) =>
          mode === "rpc"
            ? Effect.fail(new McpError.InvalidParams({ message: "mode rpc is not allowed" }))
            : Effect.fail(new Tool.ToolError({ message: "the model should retry" }))
      })
      const client = yield* connect(serverOf(Strict))
      const rpc = yield* Effect.either(client.callTool("strict", { mode: "rpc" }))
      expect(Either.isLeft(rpc) && rpc.left).toMatchObject({
        _tag: "InvalidParams",
        message: "mode rpc is not allowed"
      })
      const tool = yield* client.callTool("strict", { mode: "tool" })
      expect(tool).toMatchObject({ content: [{ type: "text", text: "the model should retry" }], isError: true })
    }))

  it.scoped("invalid arguments: an isError result from 2025-11-25, -32602 before", () =>
    Effect.gen(function*() {
      const Add = McpServer.tool({
        name: "add",
        input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        handler: ({ a, b }) => Effect.succeed(String(a + b))
      })
      const modern = yield* connect(serverOf(Add))
      const result = yield* modern.callTool("add", { a: 1, b: "two" })
      expect(result.isError).toBe(true)
      expect((result.content[0] as { text: string }).text).toContain("b")
      const old = yield* connect(serverOf(Add), { client: { name: "c", version: "1", revision: "2025-06-18" } })
      const error = yield* Effect.either(old.callTool("add", { a: 1, b: "two" }))
      expect(Either.isLeft(error) && error.left._tag).toBe("InvalidParams")
    }))

  it.scoped("handler requirements are satisfied by Layers", () =>
    Effect.gen(function*() {
      class Greeting extends Context.Tag("Greeting")<Greeting, string>() {}
      const Greet = McpServer.tool({
        name: "greet",
        input: Schema.Struct({ who: Schema.String }),
        handler: ({ who }) => Effect.map(Greeting, (g) => `${g}, ${who}`)
      })
      const client = yield* connect(serverOf(Greet.pipe(Layer.provide(Layer.succeed(Greeting, "Hello")))))
      expect((yield* client.callTool("greet", { who: "Ada" })).content).toEqual([{ type: "text", text: "Hello, Ada" }])
    }))

  it.scoped("the client validates structuredContent against the outputSchema", () =>
    Effect.gen(function*() {
      // A tool that lies about its output: its descriptor says number, it returns a string.
      const Liar = McpServer.tool({
        name: "liar",
        input: Schema.Struct({}),
        output: Schema.Struct({ n: Schema.Number }),
        handler: () => Effect.succeed({ n: 1 })
      })
      const server = serverOf(Liar)
      const client = yield* connect(server.pipe(Layer.tap((ctx) => {
        const s = Context.get(ctx, McpServer.McpServer)
        const t = s.tool("liar")!
        return s.addTool({ ...t, call: () => Effect.succeed({ content: [], structuredContent: { n: "one" } }) })
      })))
      yield* client.listTools()
      const result = yield* Effect.either(client.callTool("liar", {}))
      expect(Either.isLeft(result) && result.left._tag).toBe("ProtocolViolation")
    }))

  it.scoped("pagination: 250 tools in pages of 100", () =>
    Effect.gen(function*() {
      const [first, ...rest] = Array.from({ length: 250 }, (_, i) =>
        McpServer.tool({ name: `t${i}`, input: Schema.Struct({}), handler: () => Effect.succeed(`${i}`) }))
      const tools = Layer.mergeAll(first!, ...rest)
      const peer = yield* rawPeer(serverOf(tools, { pageSize: 100 }))
      yield* peer.handshake()
      const pages: Array<number> = []
      let cursor: string | undefined
      do {
        yield* peer.send({ jsonrpc: "2.0", id: pages.length, method: "tools/list", params: cursor ? { cursor } : {} })
        const page = (yield* peer.next).result
        pages.push(page.tools.length)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      expect(pages).toEqual([100, 100, 50])
      yield* peer.send({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { cursor: "bogus" } })
      expect(yield* peer.next).toMatchObject({ id: 9, error: { code: -32602 } })
      const client = yield* connect(serverOf(tools, { pageSize: 100 }))
      expect((yield* client.listTools()).length).toBe(250)
    }))

  it.scoped("two servers' Layers compose with prefixed names", () =>
    Effect.gen(function*() {
      const search = McpServer.tool({ name: "search", input: Schema.Struct({}), handler: () => Effect.succeed("web") })
      const searchToo = McpServer.tool({
        name: "search",
        input: Schema.Struct({}),
        handler: () => Effect.succeed("docs")
      })
      const Web = search.pipe(McpServer.prefixed("web_"))
      const Docs = Layer.merge(
        searchToo,
        McpServer.prompt({ name: "summary", handler: () => Effect.succeed("summarise the docs") })
      ).pipe(McpServer.prefixed("docs_"))
      const client = yield* connect(serverOf(Layer.merge(Web, Docs)))
      expect((yield* client.listTools()).map((t) => t.name).sort()).toEqual(["docs_search", "web_search"])
      expect((yield* client.callTool("web_search", {})).content).toEqual([{ type: "text", text: "web" }])
      expect((yield* client.callTool("docs_search", {})).content).toEqual([{ type: "text", text: "docs" }])
      expect((yield* client.listPrompts()).map((p) => p.name)).toEqual(["docs_summary"])
    }))

  it.scoped("registering and removing at run time sends one debounced list_changed", () =>
    Effect.gen(function*() {
      const base = McpServer.tool({ name: "base", input: Schema.Struct({}), handler: () => Effect.succeed("") })
      const server = serverOf(base)
      let registry: McpServer.McpServerService | undefined
      const client = yield* connect(
        server.pipe(Layer.tap((ctx) =>
          Effect.sync(() => {
            registry = Context.get(ctx, McpServer.McpServer)
          })
        )),
        handshake
      )
      const changes = yield* client.toolListChanged.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      const extra = Tool.make(
        { name: "extra", input: Schema.Struct({}), handler: () => Effect.succeed("x") },
        Context.empty()
      )
      yield* registry!.addTool(extra)
      yield* registry!.addTool({ ...extra, descriptor: { ...extra.descriptor, name: "extra2" } })
      yield* registry!.removeTool("base")
      yield* TestClock.adjust("20 millis")
      expect(Chunk.size(yield* Fiber.join(changes))).toBe(1)
      expect((yield* client.listTools()).map((t) => t.name)).toEqual(["extra", "extra2"])
    }))

  it.scopedLive("an idle session holds no fiber for its pushes: one runs only while a list_changed is due", () =>
    Effect.gen(function*() {
      const base = McpServer.tool({ name: "base", input: Schema.Struct({}), handler: () => Effect.succeed("") })
      let registry: McpServer.McpServerService | undefined
      const supervisor = yield* Supervisor.track
      yield* connect(
        serverOf(base).pipe(Layer.tap((ctx) =>
          Effect.sync(() => {
            registry = Context.get(ctx, McpServer.McpServer)
          })
        )),
        handshake
      ).pipe(Effect.supervised(supervisor))
      // Fibers are compared as sets: the handshake's timeout sweeper may still run, and stops on its own.
      const idle = new Set(yield* supervisor.value)
      const added = Effect.map(supervisor.value, (fibers) => fibers.filter((f) => !idle.has(f)))
      yield* registry!.removeTool("base")
      const flush = yield* added
      expect(flush).toHaveLength(1)
      // It ends once the list_changed went out (after the 10 ms debounce), and nothing is left in its place.
      yield* Fiber.await(flush[0]!).pipe(Effect.timeout("5 seconds"))
      expect(yield* added).toEqual([])
    }))

  it.scoped("2024-11-05 clients never see fields their revision lacks", () =>
    Effect.gen(function*() {
      const Titled = McpServer.tool({
        name: "titled",
        title: "A title",
        icons: [{ src: "https://example.com/i.png" }],
        input: Schema.Struct({}),
        output: Schema.Struct({ ok: Schema.Boolean }),
        handler: () => Effect.succeed({ ok: true })
      })
      const peer = yield* rawPeer(serverOf(Titled))
      yield* peer.handshake("2024-11-05")
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      const tool = (yield* peer.next).result.tools[0]
      expect(tool.title).toBeUndefined()
      expect(tool.icons).toBeUndefined()
      expect(tool.outputSchema).toBeUndefined()
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "titled", arguments: {} } })
      const result = (yield* peer.next).result
      expect(result.structuredContent).toBeUndefined()
      expect(result.content).toEqual([{ type: "text", text: "{\"ok\":true}" }])
    }))

  it.scoped("a tool result the revision cannot carry is a tool error saying so, not -32603", () =>
    Effect.gen(function*() {
      const Sound = McpServer.tool({
        name: "sound",
        input: Schema.Struct({}),
        handler: () => Effect.succeed({ content: [{ type: "audio" as const, data: "AAAA", mimeType: "audio/wav" }] })
      })
      const peer = yield* rawPeer(serverOf(Sound))
      yield* peer.handshake("2024-11-05")
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sound", arguments: {} } })
      const result = (yield* peer.next).result
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toMatch(/cannot be expressed in protocol revision 2024-11-05/)
      const later = yield* rawPeer(serverOf(Sound))
      yield* later.handshake("2025-03-26")
      yield* later.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sound", arguments: {} } })
      expect((yield* later.next).result.content[0]).toMatchObject({ type: "audio", data: "AAAA" })
    }))
})

describe("resources, templates, prompts, completion", () => {
  const Readme = McpServer.resource({
    uri: "file:///readme.md",
    name: "readme",
    mimeType: "text/markdown",
    read: Effect.succeed("# Hello")
  })
  const Logo = McpServer.resource({
    uri: "file:///logo.png",
    name: "logo",
    mimeType: "image/png",
    read: Effect.succeed(new Uint8Array([1, 2, 3]))
  })
  const Users = McpServer.resourceTemplate({
    uriTemplate: "users://{id}/profile",
    name: "user",
    input: Schema.Struct({ id: Schema.NumberFromString }),
    complete: { id: (value) => Effect.succeed(["1", "2", "10", "11"].filter((v) => v.startsWith(value))) },
    list: Effect.succeed([{ uri: "users://1/profile", name: "user 1" }]),
    handler: ({ id }, uri) => Effect.succeed(id === 404 ? [] : [{ uri, text: `user #${id + 0}` }])
  })
  const Review = McpServer.prompt({
    name: "review",
    description: "Review code",
    input: Schema.Struct({
      language: Schema.String.annotations({ description: "the language" }),
      strict: Schema.optional(Schema.String)
    }),
    complete: {
      language: (value) => Effect.succeed(["typescript", "tsx", "python"].filter((l) => l.startsWith(value)))
    },
    handler: ({ language, strict }) => Effect.succeed(`Review this ${language} code${strict ? " strictly" : ""}`)
  })
  const server = serverOf(Layer.mergeAll(Readme, Logo, Users, Review))

  it.scoped("lists and reads resources, blobs and templated resources", () =>
    Effect.gen(function*() {
      const client = yield* connect(server)
      expect((yield* client.listResources()).map((r) => r.uri)).toEqual([
        "file:///readme.md",
        "file:///logo.png",
        "users://1/profile"
      ])
      expect((yield* client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["users://{id}/profile"])
      expect((yield* client.readResource("file:///readme.md")).contents).toEqual([
        { uri: "file:///readme.md", mimeType: "text/markdown", text: "# Hello" }
      ])
      expect((yield* client.readResource("file:///logo.png")).contents).toEqual([
        { uri: "file:///logo.png", mimeType: "image/png", blob: "AQID" }
      ])
      expect((yield* client.readResource("users://42/profile")).contents).toEqual([
        { uri: "users://42/profile", text: "user #42" }
      ])
      const missing = yield* Effect.either(client.readResource("file:///nope"))
      expect(Either.isLeft(missing) && missing.left).toMatchObject({ _tag: "ResourceNotFound", uri: "file:///nope" })
      const undecodable = yield* Effect.either(client.readResource("users://abc/profile"))
      expect(Either.isLeft(undecodable) && undecodable.left._tag).toBe("ResourceNotFound")
    }))

  it.scoped("resource-not-found is -32002 on the wire", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(server)
      yield* peer.handshake()
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///nope" } })
      expect(yield* peer.next).toMatchObject({ id: 1, error: { code: -32002, data: { uri: "file:///nope" } } })
    }))

  it.scoped("prompts with typed arguments and completion", () =>
    Effect.gen(function*() {
      const client = yield* connect(server)
      const [prompt] = yield* client.listPrompts()
      expect(prompt).toEqual({
        name: "review",
        description: "Review code",
        arguments: [
          { name: "language", required: true, description: "the language" },
          { name: "strict", required: false }
        ]
      })
      const got = yield* client.getPrompt("review", { language: "typescript" })
      expect(got.messages).toEqual([{ role: "user", content: { type: "text", text: "Review this typescript code" } }])
      const bad = yield* Effect.either(client.getPrompt("review", {}))
      expect(Either.isLeft(bad) && bad.left._tag).toBe("InvalidParams")
      const completed = yield* client.complete({
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "language", value: "t" }
      })
      expect(completed.completion).toEqual({ values: ["typescript", "tsx"], total: 2, hasMore: false })
      const ids = yield* client.complete({
        ref: { type: "ref/resource", uri: "users://{id}/profile" },
        argument: { name: "id", value: "1" }
      })
      expect(ids.completion.values).toEqual(["1", "10", "11"])
    }))

  it.scoped("subscribe, resource updates, unsubscribe", () =>
    Effect.gen(function*() {
      let registry: McpServer.McpServerService | undefined
      const client = yield* connect(
        server.pipe(Layer.tap((ctx) =>
          Effect.sync(() => {
            registry = Context.get(ctx, McpServer.McpServer)
          })
        )),
        handshake
      )
      const updates = yield* client.resourceUpdated.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* client.subscribe("file:///readme.md")
      // The stream listens from when its fiber has run: publish until it has seen an update. An unsubscribed URI
      // goes first each time, so seeing it would show the server sent it.
      yield* registry!.notifyResourceUpdated("file:///other").pipe(
        Effect.zipRight(registry!.notifyResourceUpdated("file:///readme.md")),
        Effect.zipRight(Effect.yieldNow()),
        Effect.zipRight(Fiber.poll(updates)),
        Effect.repeat({ until: Option.isSome })
      )
      expect(Chunk.toReadonlyArray(yield* Fiber.join(updates))).toEqual(["file:///readme.md"])
      yield* client.unsubscribe("file:///readme.md")
      yield* client.subscribe("file:///other")
      // Once the stream waits on its subscription (its fiber suspended), readme.md is updated, then the other URI:
      // the first update the client hears of must be the other one's.
      const next = yield* client.resourceUpdated.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* Effect.repeat(Fiber.status(next), { until: FiberStatus.isSuspended })
      yield* registry!.notifyResourceUpdated("file:///readme.md")
      yield* registry!.notifyResourceUpdated("file:///other")
      expect(Chunk.toReadonlyArray(yield* Fiber.join(next))).toEqual(["file:///other"])
    }))
})

describe("request context", () => {
  it.scoped("its data and operations work when destructured", () =>
    Effect.gen(function*() {
      const Reporter = McpServer.tool({
        name: "reporter",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            const { log, method, progress, progressToken, revision } = yield* RequestContext.RequestContext
            yield* progress(1, 2, "half")
            yield* log("warning", "from a destructured log")
            yield* progress(2, 2)
            return `${method} ${revision} ${progressToken === undefined ? "no token" : "token"}`
          })
      })
      const client = yield* connect(serverOf(Reporter), handshake)
      const logs = yield* client.logMessages.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* Effect.repeatN(Effect.yieldNow(), 2)
      const seen: Array<unknown> = []
      const result = yield* client.callTool("reporter", {}, {
        onProgress: (p) => void seen.push([p.progress, p.total, p.message])
      })
      expect(result.content).toEqual([{ type: "text", text: "tools/call 2025-11-25 token" }])
      expect(seen).toEqual([[1, 2, "half"], [2, 2, undefined]])
      expect(Chunk.toReadonlyArray(yield* Fiber.join(logs))).toEqual([{
        level: "warning",
        data: "from a destructured log"
      }])
    }))
})

describe("logging", () => {
  it.scoped("log messages respect logging/setLevel", () =>
    Effect.gen(function*() {
      const Chatty = McpServer.tool({
        name: "chatty",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            yield* RequestContext.log("debug", "noise")
            yield* RequestContext.log("warning", { careful: true }, "chatty")
            return "done"
          })
      })
      const client = yield* connect(serverOf(Chatty), handshake)
      const messages = yield* client.logMessages.pipe(Stream.take(3), Stream.runCollect, Effect.fork)
      // The forked stream subscribes on its first steps: the logs arrive within the call, so it must be subscribed first.
      yield* Effect.repeatN(Effect.yieldNow(), 2)
      yield* client.callTool("chatty", {})
      yield* client.setLoggingLevel("warning")
      yield* client.callTool("chatty", {})
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(messages))
      expect(seen).toEqual([
        { level: "debug", data: "noise" },
        { level: "warning", data: { careful: true }, logger: "chatty" },
        { level: "warning", data: { careful: true }, logger: "chatty" }
      ])
    }))
})
