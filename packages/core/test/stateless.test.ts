import { ClientHandlers, McpClient, McpServer, RequestContext } from "@effect-mcp/core"
import type { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { connect, rawPeer, rawServer } from "./helpers.js"

/** Waits for `effect` for at most 5 s of real time (whatever the test's clock), then fails naming `what`. */
const within = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`${what}: not within 5 seconds`) }),
    Effect.withClock(Clock.make()),
    Effect.orDie
  )

// One server definition, served to every era. `hang` says when each call (by its tag) starts and is interrupted.
const hangs = new Map<
  string,
  { readonly started: Deferred.Deferred<void>; readonly interrupted: Deferred.Deferred<void> }
>()
const hang = (tag: string) =>
  Effect.gen(function*() {
    const known = hangs.get(tag)
    if (known !== undefined) return known
    const made = { started: yield* Deferred.make<void>(), interrupted: yield* Deferred.make<void>() }
    hangs.set(tag, made)
    return made
  })
const Everything = Layer.mergeAll(
  McpServer.tool({
    name: "echo",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(text)
  }),
  McpServer.tool({
    name: "steps",
    input: Schema.Struct({ n: Schema.Number }),
    handler: ({ n }) =>
      Effect.gen(function*() {
        for (let i = 1; i <= n; i++) yield* RequestContext.progress(i, n)
        return `did ${n}`
      })
  }),
  McpServer.tool({
    name: "hang",
    input: Schema.Struct({ tag: Schema.String }),
    handler: ({ tag }) =>
      Effect.flatMap(hang(tag), (call) =>
        Deferred.succeed(call.started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(call.interrupted, undefined))
        ))
  }),
  McpServer.tool({
    name: "interview",
    input: Schema.Struct({}),
    handler: () =>
      Effect.gen(function*() {
        const name = yield* RequestContext.elicit({
          message: "Name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } }
        })
        const sampled = yield* RequestContext.sample({
          messages: [{ role: "user", content: { type: "text", text: `greet ${String(name.content?.name)}` } }],
          maxTokens: 20
        })
        const roots = yield* RequestContext.listRoots
        return `${(sampled.content as { text: string }).text} @ ${roots.roots[0]?.uri}`
      })
  }),
  McpServer.resource({ uri: "mem://a", name: "a", read: Effect.succeed("A") }),
  McpServer.resourceTemplate({
    uriTemplate: "mem://items/{id}",
    name: "item",
    complete: { id: (v) => Effect.succeed(["1", "2", "12"].filter((x) => x.startsWith(v))) },
    handler: ({ id }, uri) => Effect.succeed([{ uri, text: `item ${id}` }])
  }),
  McpServer.prompt({
    name: "hello",
    input: Schema.Struct({ who: Schema.String }),
    complete: { who: (v) => Effect.succeed(["ada", "alan"].filter((x) => x.startsWith(v))) },
    handler: ({ who }) => Effect.succeed(`Say hello to ${who}`)
  })
).pipe(Layer.provideMerge(McpServer.layer({ name: "everything", version: "1.0.0", cache: { ttlMs: 5_000 } })))

const handlers = Layer.mergeAll(
  ClientHandlers.elicitation({ elicit: () => Effect.succeed({ action: "accept", content: { name: "Ada" } }) }),
  ClientHandlers.sampling({
    createMessage: (p) =>
      Effect.succeed({
        role: "assistant",
        model: "test",
        content: { type: "text", text: `hi (${(p.messages[0]!.content as { text: string }).text})` }
      })
  }),
  ClientHandlers.roots({ roots: Effect.succeed([{ uri: "file:///repo" }]) })
)

const eras: ReadonlyArray<{ readonly label: string; readonly revision?: Revision.Revision; readonly expect: string }> =
  [
    { label: "an unpinned client (2026-07-28)", expect: "2026-07-28" },
    { label: "a client pinned to 2025-11-25", revision: "2025-11-25", expect: "2025-11-25" },
    { label: "a client pinned to 2025-06-18", revision: "2025-06-18", expect: "2025-06-18" },
    { label: "a client pinned to 2025-03-26", revision: "2025-03-26", expect: "2025-03-26" },
    { label: "a client pinned to 2024-11-05", revision: "2024-11-05", expect: "2024-11-05" }
  ]

for (const era of eras) {
  describe(`scenarios with ${era.label}`, () => {
    const open = connect(Everything, {
      client: { name: "scenario", version: "1", ...(era.revision ? { revision: era.revision } : {}) },
      handlers
    })

    it.scoped("negotiates the revision", () =>
      Effect.gen(function*() {
        const client = yield* open
        expect(client.revision).toBe(era.expect)
        expect(client.stateless).toBe(era.expect === "2026-07-28")
        expect(client.serverInfo.name).toBe("everything")
      }))

    it.scoped("tools, progress and cancellation", () =>
      Effect.gen(function*() {
        const client = yield* open
        expect((yield* client.listTools()).map((t) => t.name)).toEqual(["echo", "steps", "hang", "interview"])
        expect((yield* client.callTool("echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }])
        const events = Chunk.toReadonlyArray(yield* Stream.runCollect(client.callToolStream("steps", { n: 3 })))
        expect(events.map((e) => e._tag)).toEqual(["Progress", "Progress", "Progress", "Result"])
        const hanging = yield* hang(era.label)
        const call = yield* Effect.fork(client.callTool("hang", { tag: era.label }))
        yield* within("the handler started", Deferred.await(hanging.started))
        yield* Fiber.interrupt(call)
        yield* within("the handler was interrupted", Deferred.await(hanging.interrupted))
      }))

    it.scoped("resources, templates, prompts and completion", () =>
      Effect.gen(function*() {
        const client = yield* open
        expect((yield* client.listResources()).map((r) => r.uri)).toEqual(["mem://a"])
        expect((yield* client.readResource("mem://a")).contents).toEqual([{ uri: "mem://a", text: "A" }])
        expect((yield* client.readResource("mem://items/7")).contents).toEqual([{
          uri: "mem://items/7",
          text: "item 7"
        }])
        expect((yield* client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["mem://items/{id}"])
        const prompt = yield* client.getPrompt("hello", { who: "ada" })
        expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Say hello to ada" })
        const done = yield* client.complete({
          ref: { type: "ref/prompt", name: "hello" },
          argument: { name: "who", value: "a" }
        })
        expect(done.completion.values).toEqual(["ada", "alan"])
      }))

    it.scoped("elicitation, sampling and roots from one handler", () =>
      Effect.gen(function*() {
        const client = yield* open
        const result = yield* Effect.either(client.callTool("interview", {}))
        if (era.revision === "2024-11-05" || era.revision === "2025-03-26") {
          // These revisions have no elicitation: the handler's elicit fails typed (-32021).
          expect(Either.isLeft(result) && result.left._tag).toBe("MissingRequiredClientCapability")
        } else {
          expect(Either.getOrThrow(result).content).toEqual([{ type: "text", text: "hi (greet Ada) @ file:///repo" }])
        }
      }))
  })
}

describe("2026-07-28 on the wire", () => {
  const meta = (extra: object = {}) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra
  })

  it.scoped("server/discover, resultType, serverInfo and cache hints", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Everything)
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } })
      const discovered = (yield* peer.next).result
      expect(discovered.supportedVersions).toContain("2026-07-28")
      expect(discovered.supportedVersions).toContain("2024-11-05")
      expect(discovered).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" })
      expect(discovered._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "everything", version: "1.0.0" })
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta() } })
      expect((yield* peer.next).result).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" })
      yield* peer.send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { _meta: meta(), name: "echo", arguments: { text: "t" } }
      })
      const call = (yield* peer.next).result
      expect(call.resultType).toBe("complete")
      expect(call.ttlMs).toBeUndefined()
    }))

  it.scoped("cache hints per method and per resource; handshake revisions carry none", () =>
    Effect.gen(function*() {
      const Cached = Layer.mergeAll(
        McpServer.resource({
          uri: "mem://logo",
          name: "logo",
          read: Effect.succeed("L"),
          cache: { ttlMs: 60_000, scope: "public" }
        }),
        McpServer.resource({ uri: "mem://plain", name: "plain", read: Effect.succeed("P") }),
        McpServer.resourceTemplate({
          uriTemplate: "mem://docs/{id}",
          name: "doc",
          cache: { ttlMs: 1_000 },
          handler: ({ id }, uri) => Effect.succeed([{ uri, text: id }])
        })
      ).pipe(Layer.provideMerge(McpServer.layer({
        name: "cached",
        version: "1",
        cache: { ttlMs: 10, methods: { "resources/list": { ttlMs: 30_000, scope: "public" } } }
      })))
      const peer = yield* rawPeer(Cached)
      const ask = (id: number, method: string, params: object = {}) =>
        Effect.zipRight(
          peer.send({ jsonrpc: "2.0", id, method, params: { _meta: meta(), ...params } }),
          Effect.map(peer.next, (m) => m.result)
        )
      expect(yield* ask(1, "resources/list")).toMatchObject({ ttlMs: 30_000, cacheScope: "public" })
      expect(yield* ask(2, "resources/templates/list")).toMatchObject({ ttlMs: 10, cacheScope: "private" })
      expect(yield* ask(3, "resources/read", { uri: "mem://logo" })).toMatchObject({
        ttlMs: 60_000,
        cacheScope: "public"
      })
      expect(yield* ask(4, "resources/read", { uri: "mem://plain" })).toMatchObject({
        ttlMs: 10,
        cacheScope: "private"
      })
      expect(yield* ask(5, "resources/read", { uri: "mem://docs/7" })).toMatchObject({
        ttlMs: 1_000,
        cacheScope: "private"
      })
      const old = yield* rawPeer(Cached)
      yield* old.handshake("2025-11-25")
      yield* old.send({ jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "mem://logo" } })
      const read = (yield* old.next).result
      expect(read.contents).toEqual([{ uri: "mem://logo", text: "L" }])
      expect(read.ttlMs).toBeUndefined()
      expect(read.cacheScope).toBeUndefined()
    }))

  it.scoped("-32022 for an unsupported revision, with supported and requested", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Everything)
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { ...meta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }
      })
      const error = (yield* peer.next).error
      expect(error.code).toBe(-32022)
      expect(error.data.requested).toBe("2099-01-01")
      expect(error.data.supported).toContain("2026-07-28")
    }))

  it.scoped("-32021 when the request did not declare a capability its handler needs", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Everything)
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: meta(), name: "interview", arguments: {} }
      })
      const error = (yield* peer.next).error
      expect(error.code).toBe(-32021)
      expect(error.data.requiredCapabilities).toEqual({ elicitation: { form: {} } })
    }))

  it.scoped("ping, logging/setLevel and resources/subscribe are method-not-found; bad _meta is -32602", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Everything)
      for (const [id, method] of [[1, "ping"], [2, "logging/setLevel"], [3, "resources/subscribe"]] as const) {
        yield* peer.send({ jsonrpc: "2.0", id, method, params: { _meta: meta(), level: "info", uri: "mem://a" } })
        expect(yield* peer.next).toMatchObject({ id, error: { code: -32601 } })
      }
      yield* peer.send({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
      })
      const missing = yield* peer.next
      expect(missing).toMatchObject({ id: 4, error: { code: -32602 } })
      expect(missing.error.message).toContain("clientCapabilities")
    }))

  it.scoped("input_required carries a signed requestState; a tampered one is refused", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Everything)
      const caps = { elicitation: { form: {} }, sampling: {}, roots: {} }
      const call = (id: number, extra: object) =>
        peer.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            _meta: meta({ "io.modelcontextprotocol/clientCapabilities": caps }),
            name: "interview",
            arguments: {},
            ...extra
          }
        }).pipe(Effect.zipRight(peer.next))
      const first = (yield* call(1, {})).result
      expect(first.resultType).toBe("input_required")
      expect(first.inputRequests["input-0"].method).toBe("elicitation/create")
      expect(typeof first.requestState).toBe("string")
      const second = (yield* call(2, {
        requestState: first.requestState,
        inputResponses: { "input-0": { action: "accept", content: { name: "Bob" } } }
      })).result
      expect(second.inputRequests["input-1"].method).toBe("sampling/createMessage")
      const [payload, mac] = String(second.requestState).split(".")
      const forged = `${
        Buffer.from(JSON.stringify(["tools/call", "interview", { "input-0": { action: "decline" } }])).toString(
          "base64url"
        )
      }.${mac}`
      expect(payload).not.toBe(forged.split(".")[0])
      const refused = yield* call(3, { requestState: forged, inputResponses: {} })
      expect(refused.error.code).toBe(-32602)
      const replayedElsewhere = yield* peer.send({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { _meta: meta(), name: "echo", arguments: { text: "x" }, requestState: second.requestState }
      }).pipe(Effect.zipRight(peer.next))
      expect(replayedElsewhere.error.code).toBe(-32602)
      const third = (yield* call(5, {
        requestState: second.requestState,
        inputResponses: { "input-1": { role: "assistant", model: "m", content: { type: "text", text: "yo Bob" } } }
      })).result
      expect(third.inputRequests["input-2"].method).toBe("roots/list")
      const done = (yield* call(6, {
        requestState: third.requestState,
        inputResponses: { "input-2": { roots: [{ uri: "file:///x" }] } }
      })).result
      expect(done).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "yo Bob @ file:///x" }] })
    }))

  it.scoped("log messages only when the request asked for a level", () =>
    Effect.gen(function*() {
      const Chatty = McpServer.tool({
        name: "chatty",
        input: Schema.Struct({}),
        handler: () => RequestContext.log("info", "hello").pipe(Effect.as("ok"))
      })
      const peer = yield* rawPeer(Chatty.pipe(Layer.provideMerge(McpServer.layer({ name: "c", version: "1" }))))
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: meta(), name: "chatty" } })
      expect((yield* peer.next).id).toBe(1)
      yield* peer.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { _meta: meta({ "io.modelcontextprotocol/logLevel": "debug" }), name: "chatty" }
      })
      expect(yield* peer.next).toMatchObject({
        method: "notifications/message",
        params: { level: "info", data: "hello" }
      })
      expect((yield* peer.next).id).toBe(2)
    }))

  it.scoped("subscriptions/listen acknowledges what is supported and tags what it sends", () =>
    Effect.gen(function*() {
      let registry: McpServer.McpServerService | undefined
      const server = Everything.pipe(Layer.tap((ctx) =>
        Effect.sync(() => {
          registry = Context.get(ctx, McpServer.McpServer)
        })
      ))
      const peer = yield* rawPeer(server)
      yield* peer.send({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          _meta: meta(),
          notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["mem://a"] }
        }
      })
      const ack = yield* peer.next
      expect(ack).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
          notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["mem://a"] }
        }
      })
      yield* registry!.removeTool("echo")
      yield* TestClock.adjust("20 millis")
      expect(yield* peer.next).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } }
      })
      yield* registry!.notifyResourceUpdated("mem://other")
      yield* registry!.notifyResourceUpdated("mem://a")
      expect(yield* peer.next).toMatchObject({
        method: "notifications/resources/updated",
        params: { uri: "mem://a", _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } }
      })
    }))

  it.scoped("the client's listen Stream delivers the tagged notifications", () =>
    Effect.gen(function*() {
      let registry: McpServer.McpServerService | undefined
      const client = yield* connect(Everything.pipe(Layer.tap((ctx) =>
        Effect.sync(() => {
          registry = Context.get(ctx, McpServer.McpServer)
        })
      )))
      const acked = yield* Deferred.make<void>()
      const got = yield* client.listen({ toolsListChanged: true }).pipe(
        Stream.tap((n) =>
          n.method === "notifications/subscriptions/acknowledged" ? Deferred.succeed(acked, undefined) : Effect.void
        ),
        Stream.take(2),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(acked)
      yield* registry!.removeTool("steps")
      yield* TestClock.adjust("20 millis")
      const methods = Chunk.toReadonlyArray(yield* Fiber.join(got)).map((n) => n.method)
      expect(methods).toEqual(["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"])
    }))

  it.scoped("a 2026 client falls back to initialize against a handshake-only server", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const client = yield* Effect.fork(McpClient.make({ name: "c", version: "1" }).pipe(Effect.provide(server.layer)))
      const probe = yield* server.next
      expect(probe.method).toBe("server/discover")
      yield* server.send({ jsonrpc: "2.0", id: probe.id, error: { code: -32601, message: "Method not found" } })
      const init = yield* server.acceptHandshake
      expect(init.params.protocolVersion).toBe("2025-11-25")
      const connected = yield* Fiber.join(client)
      expect(connected.revision).toBe("2025-11-25")
      expect(connected.stateless).toBe(false)
    }))

  it.scoped("the era found is remembered per server: the next connection skips the probe", () =>
    Effect.gen(function*() {
      const options = { name: "c", version: "1", server: "stdio: node legacy-server.js" }
      const first = yield* rawServer
      const fiber = yield* Effect.fork(McpClient.make(options).pipe(Effect.provide(first.layer)))
      const probe = yield* first.next
      expect(probe.method).toBe("server/discover")
      yield* first.send({ jsonrpc: "2.0", id: probe.id, error: { code: -32601, message: "Method not found" } })
      yield* first.acceptHandshake
      expect((yield* Fiber.join(fiber)).revision).toBe("2025-11-25")

      const second = yield* rawServer
      const again = yield* Effect.fork(McpClient.make(options).pipe(Effect.provide(second.layer)))
      const init = yield* second.acceptHandshake
      expect(init.method).toBe("initialize")
      expect((yield* Fiber.join(again)).revision).toBe("2025-11-25")

      // Another server name is probed as before
      const other = yield* rawServer
      yield* Effect.fork(
        McpClient.make({ ...options, server: "http://127.0.0.1:1/mcp" }).pipe(Effect.provide(other.layer))
      )
      expect((yield* other.next).method).toBe("server/discover")
    }).pipe(Effect.provideService(McpClient.NegotiationMemory, McpClient.makeNegotiationMemory())))

  it.scoped("a server remembered as handshake-only that now refuses initialize is probed again", () =>
    Effect.gen(function*() {
      const memory = McpClient.makeNegotiationMemory()
      yield* memory.set("upgraded", "handshake")
      const server = yield* rawServer
      const fiber = yield* Effect.fork(
        McpClient.make({ name: "c", version: "1", server: "upgraded" }).pipe(
          Effect.provide(server.layer),
          Effect.provideService(McpClient.NegotiationMemory, memory)
        )
      )
      const init = yield* server.next
      expect(init.method).toBe("initialize")
      yield* server.send({ jsonrpc: "2.0", id: init.id, error: { code: -32601, message: "Method not found" } })
      const probe = yield* server.next
      expect(probe.method).toBe("server/discover")
      yield* server.send({
        jsonrpc: "2.0",
        id: probe.id,
        result: {
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "public",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {} },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2" } }
        }
      })
      const client = yield* Fiber.join(fiber)
      expect(client.revision).toBe("2026-07-28")
      expect(client.serverInfo.name).toBe("modern")
      expect(Option.getOrUndefined(yield* memory.get("upgraded"))).toBe("stateless")
    }))

  it.scoped("list results are cached for ttlMs", () =>
    Effect.gen(function*() {
      let registry: McpServer.McpServerService | undefined
      const client = yield* connect(Everything.pipe(Layer.tap((ctx) =>
        Effect.sync(() => {
          registry = Context.get(ctx, McpServer.McpServer)
        })
      )))
      expect((yield* client.listTools()).length).toBe(4)
      yield* registry!.removeTool("echo")
      expect((yield* client.listTools()).length).toBe(4)
      yield* TestClock.adjust("6 seconds")
      expect((yield* client.listTools()).length).toBe(3)
    }))
})
