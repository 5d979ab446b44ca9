/**
 * Our client (McpClient over StdioClientTransport / McpHttpClient) against the official servers, run
 * as real child processes: a @modelcontextprotocol/sdk 1.32 McpServer fixture, a
 * @modelcontextprotocol/server 2.4 McpServer fixture (which speaks 2026-07-28), and
 * @modelcontextprotocol/server-everything. Each connection is one describe block; each operation is
 * one test, recorded for docs/interop.md.
 */
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import type { Mcp, Revision } from "@effect-mcp/schema"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { expect, layer } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Helpers from "./helpers.js"

const { record } = Helpers.recorder("our-client")

type Kind = "sdk1" | "sdk2" | "everything"
type TransportKind = "stdio" | "streamable-http"

interface Peer {
  readonly kind: Kind
  readonly server: string
  readonly serverName: string
  /** The revisions it accepts, newest first (the first is what an unpinned client should end up with). */
  readonly revisions: ReadonlyArray<Revision.Revision>
}

const handshakeRevisions: ReadonlyArray<Revision.Revision> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

const peers: ReadonlyArray<Peer> = [
  {
    kind: "sdk1",
    server: `@modelcontextprotocol/sdk ${Helpers.versions.sdk} McpServer`,
    serverName: "sdk1-fixture",
    revisions: handshakeRevisions
  },
  {
    kind: "sdk2",
    server: `@modelcontextprotocol/server ${Helpers.versions.v2} McpServer`,
    serverName: "sdk2-fixture",
    revisions: ["2026-07-28", ...handshakeRevisions]
  },
  {
    kind: "everything",
    server: `@modelcontextprotocol/server-everything ${Helpers.versions.everything}`,
    serverName: "mcp-servers/everything",
    revisions: handshakeRevisions
  }
]

const root: Mcp.Root = { uri: "file:///tmp/interop", name: "interop" }

const handlers = Layer.mergeAll(
  ClientHandlers.sampling({
    createMessage: () =>
      Effect.succeed({
        role: "assistant",
        content: { type: "text", text: "4" },
        model: "interop-model",
        stopReason: "endTurn"
      })
  }),
  ClientHandlers.elicitation({
    modes: ["form", "url"],
    elicit: (params) =>
      Effect.succeed(
        "requestedSchema" in params ?
          {
            action: "accept",
            content: Helpers.answerForm(params.requestedSchema) as NonNullable<Mcp.ElicitResult["content"]>
          } :
          {
            action: "accept"
          }
      )
  }),
  ClientHandlers.roots({ roots: Effect.succeed([root]) })
)

const command = (kind: Kind, transport: TransportKind): ReadonlyArray<string> => {
  switch (kind) {
    case "sdk1":
      return [Helpers.sdk1Server, transport === "stdio" ? "stdio" : "http"]
    case "sdk2":
      return [Helpers.sdk2Server, transport === "stdio" ? "stdio" : "http"]
    case "everything":
      return transport === "stdio"
        ? [Helpers.serverEverything, "stdio"]
        : ["--import", Helpers.loopback, Helpers.serverEverything, "streamableHttp"]
  }
}

const transportLayer = (kind: Kind, transport: TransportKind) =>
  transport === "stdio"
    ? StdioClientTransport.layer({
      command: Helpers.node,
      args: command(kind, transport),
      env: Helpers.childEnv,
      inheritEnv: false,
      stderr: "ignore"
    })
    : Layer.unwrapScoped(
      Effect.map(
        Helpers.listening(command(kind, transport), { ...Helpers.childEnv, PORT: "0" }),
        ({ url }) => McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layer))
      )
    )

/** One connection under test. */
class Connection extends Context.Tag("interop/Connection")<Connection, {
  readonly client: McpClient.McpClientService
}>() {}

const textOf = (result: Mcp.CallToolResult | Mcp.GetPromptResult) =>
  ("content" in result ? result.content : result.messages.map((m) => m.content))
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n")

const call = (name: string, args?: Record<string, unknown>) =>
  Effect.flatMap(Connection, ({ client }) => client.callTool(name, args))

const callText = (name: string, args?: Record<string, unknown>) =>
  Effect.map(call(name, args), (result) => {
    expect(result.isError ?? false).toBe(false)
    return textOf(result)
  })

/** At least this revision (revision strings sort by date). */
const since = (revision: string, first: string) => revision >= first

// ---------- what each kind of server is asked ----------

/** The fixtures' non-interactive tools and what they must answer. */
const fixtureCalls = Effect.gen(function*() {
  expect(yield* callText("echo", { text: "hi" })).toBe("hi")
  const sum = yield* call("add", { a: 2, b: 3 })
  expect(sum.structuredContent).toEqual({ sum: 5 })
  expect(yield* callText("progress", { steps: 2 })).toBe("did 2 steps")
  expect(JSON.parse(yield* callText("stats"))).toHaveProperty("cancelled")
})

const dataUri = `data:text/plain;base64,${Buffer.from("hello interop").toString("base64")}`

/** server-everything's non-interactive tools (each with arguments and a check of its answer). */
const everythingCalls: Record<string, Effect.Effect<void, unknown, Connection>> = {
  echo: Effect.map(callText("echo", { message: "hi" }), (t) => expect(t).toBe("Echo: hi")),
  "get-annotated-message": Effect.map(
    call("get-annotated-message", { messageType: "error", includeImage: true }),
    (r) => expect(r.content.map((c) => c.type)).toEqual(["text", "image"])
  ),
  "get-env": Effect.map(callText("get-env"), (t) => expect(JSON.parse(t)).toHaveProperty("PATH")),
  "get-resource-links": Effect.map(
    call("get-resource-links", { count: 2 }),
    (r) => expect(r.content.map((c) => c.type)).toEqual(["text", "resource_link", "resource_link"])
  ),
  "get-resource-reference": Effect.map(
    call("get-resource-reference", { resourceType: "Text", resourceId: 1 }),
    (r) => expect(r.content.map((c) => c.type)).toEqual(["text", "resource", "text"])
  ),
  "get-structured-content": Effect.map(
    call("get-structured-content", { location: "Chicago" }),
    (r) => expect(r.structuredContent).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 })
  ),
  "get-sum": Effect.map(callText("get-sum", { a: 2, b: 3 }), (t) => expect(t).toBe("The sum of 2 and 3 is 5.")),
  "get-tiny-image": Effect.map(
    call("get-tiny-image"),
    (r) => expect(r.content.some((c) => c.type === "image")).toBe(true)
  ),
  "gzip-file-as-resource": Effect.map(
    call("gzip-file-as-resource", { name: "hello.gz", data: dataUri, outputType: "resource" }),
    (r) => {
      const block = r.content[0]
      expect(block?.type).toBe("resource")
      expect(block?.type === "resource" && "blob" in block.resource ? block.resource.blob.length : 0)
        .toBeGreaterThan(0)
    }
  ),
  "toggle-simulated-logging": Effect.gen(function*() {
    expect(yield* callText("toggle-simulated-logging")).toMatch(/^Started/)
    expect(yield* callText("toggle-simulated-logging")).toMatch(/^Stopped/)
  }),
  "toggle-subscriber-updates": Effect.gen(function*() {
    expect(yield* callText("toggle-subscriber-updates")).toMatch(/^Started/)
    expect(yield* callText("toggle-subscriber-updates")).toMatch(/^Stopped/)
  }),
  "trigger-long-running-operation": Effect.map(
    callText("trigger-long-running-operation", { duration: 0.1, steps: 2 }),
    (t) => expect(t).toMatch(/^Long running operation completed/)
  )
}

/** server-everything's tools that need the client (each has its own operation). */
const everythingInteractive = [
  "get-roots-list",
  "trigger-elicitation-request",
  "trigger-url-elicitation",
  "trigger-sampling-request",
  "simulate-research-query"
]

/** Polls `stats` until the fixture has seen one more cancellation than `before`. */
const cancelledSince = (before: number) =>
  callText("stats").pipe(
    Effect.map((t) => (JSON.parse(t) as { cancelled: number }).cancelled),
    Effect.filterOrFail((n) => n > before, () => "not cancelled yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(200))))
  )

/** Progress updates of a call, then its result. */
const withProgress = (name: string, args: Record<string, unknown>) =>
  Effect.flatMap(Connection, ({ client }) =>
    client.callToolStream(name, args).pipe(
      Stream.runCollect,
      Effect.map((events) => {
        const all = Chunk.toReadonlyArray(events)
        const last = all[all.length - 1]
        return {
          progress: all.flatMap((e) => (e._tag === "Progress" ? [e.progress.progress] : [])),
          result: last?._tag === "Result" ? last.result : undefined
        }
      })
    ))

/** Starts a call, waits for its first progress update, interrupts it. */
const cancelAfterStart = (name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { client } = yield* Connection
    const started = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(client.callTool(name, args, {
      onProgress: () => Deferred.unsafeDone(started, Effect.void)
    }))
    yield* Deferred.await(started)
    yield* Fiber.interrupt(fiber)
  })

// ---------- the runs ----------

const transports: ReadonlyArray<TransportKind> = ["stdio", "streamable-http"]

for (const peer of peers) {
  for (const transport of transports) {
    for (const [i, revision] of peer.revisions.entries()) {
      const pinned = i > 0
      const run = {
        direction: "our-client" as const,
        client: "effect-mcp McpClient",
        server: peer.server,
        transport,
        revision: `${revision} (${pinned ? "pinned" : "negotiated"})`
      }
      const connection = Layer.scoped(
        Connection,
        record(
          run,
          "connect",
          Effect.gen(function*() {
            const client = yield* McpClient.make({
              name: "effect-mcp-interop",
              version: "0.0.0",
              ...(pinned ? { revision } : {})
            })
            expect(client.revision).toBe(revision)
            expect(client.serverInfo.name).toBe(peer.serverName)
            return { client }
          })
        )
      ).pipe(Layer.provide(Layer.merge(transportLayer(peer.kind, transport), handlers)))

      const op = <A, E>(name: string, effect: Effect.Effect<A, E, Connection>, knownBug?: string) =>
        record(run, name, effect, knownBug)

      layer(connection, { excludeTestServices: true, timeout: "60 seconds" })(
        `${peer.server} over ${transport} at ${run.revision}`,
        (it) => {
          const client = Effect.map(Connection, (c) => c.client)

          it.effect("connects", () => Effect.void)

          if (peer.kind !== "everything") {
            it.effect("tools/list", () =>
              op(
                "tools/list",
                Effect.gen(function*() {
                  const tools = yield* Effect.flatMap(client, (c) => c.listTools())
                  expect(tools.map((t) => t.name).sort()).toEqual(
                    ["add", "ask", "echo", "progress", "slow", "stats", "think"]
                  )
                  expect(tools.find((t) => t.name === "add")?.outputSchema).toBeDefined()
                })
              ))

            it.effect("tools/call (every tool)", () => op("tools/call (every tool)", fixtureCalls))

            it.effect("resources/list", () =>
              op(
                "resources/list",
                Effect.gen(function*() {
                  const c = yield* client
                  expect((yield* c.listResources()).map((r) => r.uri)).toEqual(["fixture://greeting"])
                  expect((yield* c.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
                    "fixture://items/{id}"
                  ])
                })
              ))

            it.effect("resources/read", () =>
              op(
                "resources/read",
                Effect.gen(function*() {
                  const c = yield* client
                  const greeting = yield* c.readResource("fixture://greeting")
                  expect(greeting.contents[0]).toMatchObject({ uri: "fixture://greeting", text: /^hello from sdk/ })
                  const item = yield* c.readResource("fixture://items/7")
                  expect(item.contents[0]).toMatchObject({
                    uri: "fixture://items/7",
                    text: JSON.stringify({ id: "7" })
                  })
                })
              ))

            it.effect("prompts/list", () =>
              op(
                "prompts/list",
                Effect.gen(function*() {
                  const prompts = yield* Effect.flatMap(client, (c) => c.listPrompts())
                  expect(prompts.map((p) => p.name)).toEqual(["greet"])
                  expect(prompts[0]?.arguments?.map((a) => a.name)).toEqual(["name"])
                })
              ))

            it.effect("prompts/get", () =>
              op(
                "prompts/get",
                Effect.gen(function*() {
                  const prompt = yield* Effect.flatMap(client, (c) => c.getPrompt("greet", { name: "Ada" }))
                  expect(textOf(prompt)).toBe("Say hello to Ada")
                })
              ))

            it.effect("progress", () =>
              op(
                "progress",
                Effect.gen(function*() {
                  const { progress, result } = yield* withProgress("progress", { steps: 3 })
                  expect(progress).toEqual([1, 2, 3])
                  expect(result && textOf(result)).toBe("did 3 steps")
                })
              ))

            it.effect("cancel", () =>
              op(
                "cancel",
                Effect.gen(function*() {
                  const before = (JSON.parse(yield* callText("stats")) as { cancelled: number }).cancelled
                  yield* cancelAfterStart("slow", {})
                  expect(yield* cancelledSince(before)).toBe(before + 1)
                })
              ))

            if (since(revision, "2025-06-18")) {
              it.effect("elicitation", () =>
                op("elicitation", Effect.map(callText("ask"), (t) => expect(t).toBe("accept: Ada"))))
            }

            it.effect("sampling", () =>
              op("sampling", Effect.map(callText("think"), (t) => expect(t).toBe("model interop-model said 4"))))
          } else {
            it.effect("tools/list", () =>
              op(
                "tools/list",
                Effect.gen(function*() {
                  const names = (yield* Effect.flatMap(client, (c) => c.listTools())).map((t) => t.name)
                  const expected = [
                    ...Object.keys(everythingCalls),
                    "get-roots-list",
                    "trigger-sampling-request",
                    "simulate-research-query",
                    ...(since(revision, "2025-06-18") ? ["trigger-elicitation-request"] : []),
                    // 2025-06-18's elicitation capability is an open object, so our `url` mode is declared there too
                    ...(since(revision, "2025-06-18") ? ["trigger-url-elicitation"] : [])
                  ]
                  expect(names.sort()).toEqual(expected.sort())
                })
              ))

            it.effect("tools/call (every tool)", () =>
              op(
                "tools/call (every tool)",
                Effect.gen(function*() {
                  const names = (yield* Effect.flatMap(client, (c) => c.listTools())).map((t) => t.name)
                  // `get-resource-links` answers with `resource_link` content even before 2025-06-18 defined it: the
                  // client reads a result its revision cannot express as the first newer revision that does
                  const plain = names.filter((n) => !everythingInteractive.includes(n))
                  expect(plain.filter((n) => everythingCalls[n] === undefined)).toEqual([])
                  for (const name of plain) {
                    yield* everythingCalls[name]!.pipe(
                      Effect.mapError((e) => new Error(`${name}: ${JSON.stringify(e)}`))
                    )
                  }
                })
              ))

            it.effect("resources/list", () =>
              op(
                "resources/list",
                Effect.gen(function*() {
                  const c = yield* client
                  const resources = yield* c.listResources()
                  expect(resources.length).toBeGreaterThan(0)
                  // static documents, and the session resource `gzip-file-as-resource` registered earlier
                  expect(resources.every((r) => /^demo:\/\/resource\/(static\/document|session)\//.test(r.uri)))
                    .toBe(true)
                  expect((yield* c.listResourceTemplates()).map((t) => t.uriTemplate).sort()).toEqual([
                    "demo://resource/dynamic/blob/{resourceId}",
                    "demo://resource/dynamic/text/{resourceId}"
                  ])
                })
              ))

            it.effect("resources/read", () =>
              op(
                "resources/read",
                Effect.gen(function*() {
                  const c = yield* client
                  for (const resource of yield* c.listResources()) {
                    const read = yield* c.readResource(resource.uri)
                    expect(read.contents[0]?.uri).toBe(resource.uri)
                    expect(read.contents.every((c) => "text" in c || "blob" in c)).toBe(true)
                  }
                  const text = yield* c.readResource("demo://resource/dynamic/text/1")
                  expect(text.contents[0]).toMatchObject({ text: /^Resource 1: This is a plaintext resource/ })
                  const blob = yield* c.readResource("demo://resource/dynamic/blob/2")
                  const contents = blob.contents[0]
                  expect(contents && "blob" in contents ? Buffer.from(contents.blob, "base64").toString() : "")
                    .toMatch(/^Resource 2: This is a base64 blob/)
                })
              ))

            it.effect("prompts/list", () =>
              op(
                "prompts/list",
                Effect.gen(function*() {
                  const prompts = yield* Effect.flatMap(client, (c) => c.listPrompts())
                  expect(prompts.map((p) => p.name).sort()).toEqual(
                    ["args-prompt", "completable-prompt", "resource-prompt", "simple-prompt"]
                  )
                })
              ))

            it.effect("prompts/get", () =>
              op(
                "prompts/get",
                Effect.gen(function*() {
                  const c = yield* client
                  expect(textOf(yield* c.getPrompt("simple-prompt"))).toBe("This is a simple prompt without arguments.")
                  expect(textOf(yield* c.getPrompt("args-prompt", { city: "Paris", state: "TX" }))).toBe(
                    "What's weather in Paris, TX?"
                  )
                  expect(textOf(yield* c.getPrompt("completable-prompt", { department: "Sales", name: "Eve" })))
                    .toBe("Please promote Eve to the head of the Sales team.")
                  const embedded = yield* c.getPrompt("resource-prompt", { resourceType: "Text", resourceId: "3" })
                  expect(embedded.messages.map((m) => m.content.type)).toEqual(["text", "resource"])
                })
              ))

            it.effect("completion/complete", () =>
              op(
                "completion/complete",
                Effect.gen(function*() {
                  const c = yield* client
                  const departments = yield* c.complete({
                    ref: { type: "ref/prompt", name: "completable-prompt" },
                    argument: { name: "department", value: "S" }
                  })
                  expect(departments.completion.values).toEqual(["Sales", "Support"])
                  const names = yield* c.complete({
                    ref: { type: "ref/prompt", name: "completable-prompt" },
                    argument: { name: "name", value: "" },
                    context: { arguments: { department: "Engineering" } }
                  })
                  // `context` exists from 2025-06-18; before it the encoder drops it, so the server sees none
                  expect(names.completion.values).toEqual(
                    since(revision, "2025-06-18") ? ["Alice", "Bob", "Charlie"] : []
                  )
                })
              ))

            it.effect("progress", () =>
              op(
                "progress",
                Effect.gen(function*() {
                  const { progress, result } = yield* withProgress("trigger-long-running-operation", {
                    duration: 0.3,
                    steps: 3
                  })
                  expect(progress).toEqual([1, 2, 3])
                  expect(result && textOf(result)).toMatch(/^Long running operation completed/)
                })
              ))

            it.effect("cancel", () =>
              op(
                "cancel",
                Effect.gen(function*() {
                  yield* cancelAfterStart("trigger-long-running-operation", { duration: 600, steps: 600 })
                  expect(yield* callText("echo", { message: "after" })).toBe("Echo: after")
                })
              ))

            it.effect("roots", () =>
              op(
                "roots",
                Effect.map(callText("get-roots-list"), (t) => expect(t).toContain(root.uri))
              ))

            if (since(revision, "2025-06-18")) {
              // On 2025-06-18 the form uses 2025-11-25 schema features (string defaults, titled and multi-select
              // enums); the client reads it as the first newer revision that defines them
              it.effect("elicitation", () =>
                op(
                  "elicitation",
                  Effect.gen(function*() {
                    expect(yield* callText("trigger-elicitation-request")).toContain("- Name: Ada")
                    if (since(revision, "2025-11-25")) {
                      expect(yield* callText("trigger-url-elicitation", { url: "https://example.com/consent" }))
                        .toContain("User completed the URL elicitation flow")
                    }
                  })
                ))
            }

            it.effect("sampling", () =>
              op(
                "sampling",
                Effect.map(
                  callText("trigger-sampling-request", { prompt: "2+2?" }),
                  (t) => expect(t).toContain("interop-model")
                )
              ))

            if (since(revision, "2025-11-25")) {
              it.effect("tasks", () =>
                op(
                  "tasks",
                  Effect.gen(function*() {
                    const c = yield* client
                    const task = yield* c.callToolAsTask("simulate-research-query", { topic: "effect systems" })
                    const result = yield* task.result
                    expect(textOf(result)).toContain("# Research Report: effect systems")
                  })
                ))
            }
          }
        }
      )
    }
  }
}
