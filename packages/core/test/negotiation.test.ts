// Negotiation against servers that mishandle the `server/discover` probe (issue 28, defect 8): a server that never
// answers it, or answers it with another id, costs the probe's short bound, not the request timeout; what was found
// is remembered per server, in a memory of bounded size.
import { McpClient, type Transport } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { rawServer } from "./helpers.js"

const discoverResult = {
  resultType: "complete",
  ttlMs: 0,
  cacheScope: "public",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2" } }
}

/** The next message the client sends, or a failure when it sends none within a second of real time. */
const nextOf = (server: { readonly next: Effect.Effect<any> }) =>
  TestServices.provideLive(Effect.timeoutFail(server.next, {
    duration: "1 second",
    onTimeout: () => new Error("the client sent nothing")
  }))

/** Starts a client with a 60 s request timeout (a test that waited for it would fail) and a memory of its own. */
const start = (
  layer: Layer.Layer<Transport.Transport>,
  options: Partial<McpClient.Options> = {},
  memory: McpClient.NegotiationMemoryService = McpClient.makeNegotiationMemory()
) =>
  Effect.fork(
    McpClient.make({ name: "c", version: "1", requestTimeout: "60 seconds", ...options }).pipe(
      Effect.provide(layer),
      Effect.provideService(McpClient.NegotiationMemory, memory)
    )
  )

describe("negotiation against a server that mishandles server/discover", () => {
  it.scoped("a probe never answered falls back to initialize after 5 s, not the 60 s request timeout", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const fiber = yield* start(server.layer)
      const probe = yield* nextOf(server)
      expect(probe.method).toBe("server/discover")
      yield* TestClock.adjust("4999 millis")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      // The probe is cancelled on the wire, then the client greets.
      expect(yield* nextOf(server)).toMatchObject({
        method: "notifications/cancelled",
        params: { requestId: probe.id }
      })
      yield* server.acceptHandshake
      const client = yield* Fiber.join(fiber)
      expect(client.revision).toBe("2025-11-25")
      expect(client.stateless).toBe(false)
    }))

  it.scoped("a probe answered with another id (as an @effect/ai 0.37 server does) is as good as silence", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const fiber = yield* start(server.layer, { probeTimeout: "2 seconds" })
      const probe = yield* nextOf(server)
      yield* server.send({
        jsonrpc: "2.0",
        id: `${probe.id}-wrong`,
        error: { code: -32601, message: "Method not found" }
      })
      yield* TestClock.adjust("2 seconds")
      expect((yield* nextOf(server)).method).toBe("notifications/cancelled")
      yield* server.acceptHandshake
      expect((yield* Fiber.join(fiber)).revision).toBe("2025-11-25")
    }))

  it.scoped("the probe's bound is never longer than the request timeout", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const fiber = yield* start(server.layer, { requestTimeout: "1 second" })
      yield* nextOf(server)
      yield* TestClock.adjust("1 second")
      expect((yield* nextOf(server)).method).toBe("notifications/cancelled")
      yield* server.acceptHandshake
      expect((yield* Fiber.join(fiber)).revision).toBe("2025-11-25")
    }))

  it.scoped("a server that ignored the probe is remembered: the next connection greets at once", () =>
    Effect.gen(function*() {
      const memory = McpClient.makeNegotiationMemory()
      const options = { server: "stdio: node ignores-discover.js" }
      const first = yield* rawServer
      const fiber = yield* start(first.layer, options, memory)
      yield* nextOf(first)
      yield* TestClock.adjust("5 seconds")
      yield* nextOf(first)
      yield* first.acceptHandshake
      yield* Fiber.join(fiber)
      expect(Option.getOrUndefined(yield* memory.get(options.server))).toBe("handshake")

      const second = yield* rawServer
      const again = yield* start(second.layer, options, memory)
      expect((yield* second.acceptHandshake).method).toBe("initialize")
      expect((yield* Fiber.join(again)).revision).toBe("2025-11-25")
    }))

  it.scoped("a slow 2026-07-28-only server whose probe timed out is probed again when it refuses initialize", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const fiber = yield* start(server.layer)
      yield* nextOf(server)
      yield* TestClock.adjust("5 seconds")
      expect((yield* nextOf(server)).method).toBe("notifications/cancelled")
      const init = yield* nextOf(server)
      expect(init.method).toBe("initialize")
      yield* server.send({ jsonrpc: "2.0", id: init.id, error: { code: -32601, message: "Method not found" } })
      const again = yield* nextOf(server)
      expect(again.method).toBe("server/discover")
      // Probed again with the request timeout: an answer slower than the probe's bound is still taken.
      yield* TestClock.adjust("10 seconds")
      yield* server.send({ jsonrpc: "2.0", id: again.id, result: discoverResult })
      const client = yield* Fiber.join(fiber)
      expect(client.revision).toBe("2026-07-28")
      expect(client.serverInfo.name).toBe("modern")
    }))

  it.scoped("a server that answers nothing fails after the probe bound and one request timeout", () =>
    Effect.gen(function*() {
      const server = yield* rawServer
      const fiber = yield* start(server.layer, { requestTimeout: "20 seconds" })
      yield* nextOf(server)
      yield* TestClock.adjust("5 seconds")
      yield* nextOf(server)
      expect((yield* nextOf(server)).method).toBe("initialize")
      yield* TestClock.adjust("19999 millis")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error.reason).toContain("initialize failed")
      expect(error.reason).toContain("timed out")
      // No second probe after a timed-out initialize: only its cancellation was sent.
      expect((yield* nextOf(server)).method).toBe("notifications/cancelled")
      expect(yield* Effect.either(nextOf(server))).toMatchObject({ _tag: "Left" })
    }))

  it.effect("the negotiation memory keeps the most recently used servers up to its capacity", () =>
    Effect.gen(function*() {
      const bounded = McpClient.makeNegotiationMemory(2)
      yield* bounded.set("a", "handshake")
      yield* bounded.set("b", "stateless")
      yield* bounded.get("a")
      yield* bounded.set("c", "handshake")
      expect(Option.getOrUndefined(yield* bounded.get("a"))).toBe("handshake")
      expect(Option.isNone(yield* bounded.get("b"))).toBe(true)
      expect(Option.getOrUndefined(yield* bounded.get("c"))).toBe("handshake")
      const many = McpClient.makeNegotiationMemory()
      for (let i = 0; i < 5_000; i++) yield* many.set(`server ${i}`, "handshake")
      expect(Option.isNone(yield* many.get("server 0"))).toBe(true)
      expect(Option.isSome(yield* many.get(`server ${4_999}`))).toBe(true)
      expect(Option.isSome(yield* many.get(`server ${5_000 - McpClient.negotiationMemoryCapacity}`))).toBe(true)
      expect(Option.isNone(yield* many.get(`server ${4_999 - McpClient.negotiationMemoryCapacity}`))).toBe(true)
    }))
})
