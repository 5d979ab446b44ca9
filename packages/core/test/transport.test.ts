import { InMemoryTransport, McpClient, McpServer, McpTest, Transport } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { RuntimeId } from "../src/internal/server/runtime.js"

const Echo = McpServer.tool({
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})
const server = Echo.pipe(Layer.provideMerge(McpServer.layer({ name: "transport-test", version: "1" })))

describe("Transport.Inbound", () => {
  it.effect("keeps frames pushed before the engine receives, hands them over in order, then pushes at once", () =>
    Effect.gen(function*() {
      const inbound = yield* Transport.makeInbound
      inbound.push(Transport.frame(1))
      inbound.push(Transport.frame(2))
      const seen: Array<unknown> = []
      const receiving = yield* Effect.fork(inbound.receive((incoming) => {
        seen.push(incoming._tag === "Frame" ? incoming.message : incoming.reason)
        // A frame pushed while the kept ones are handed over comes after them.
        if (seen.length === 1) inbound.push(Transport.frame(3))
      }))
      yield* Effect.yieldNow()
      expect(seen).toEqual([1, 2, 3])
      inbound.push(Transport.frame(4))
      expect(seen).toEqual([1, 2, 3, 4])
      inbound.end()
      yield* Fiber.join(receiving)
      expect(inbound.push(Transport.frame(5))).toBe(false)
      expect(seen).toEqual([1, 2, 3, 4])
    }))

  it.effect("a receive started after the end hands over what was kept and completes", () =>
    Effect.gen(function*() {
      const inbound = yield* Transport.makeInbound
      inbound.push(Transport.malformed("not JSON"))
      inbound.end()
      const seen: Array<Transport.Incoming> = []
      yield* inbound.receive((incoming) => seen.push(incoming))
      expect(seen).toEqual([Transport.malformed("not JSON")])
    }))
})

describe("Transport.Inbound.listen", () => {
  it.effect("hands over what was kept, then each push at once; calls onEnd once at the end; stop stops it", () =>
    Effect.sync(() => {
      const inbound = Transport.unsafeMakeInbound()
      inbound.push(Transport.frame(1))
      const seen: Array<unknown> = []
      let ends = 0
      const stop = inbound.listen((incoming) => {
        seen.push(incoming._tag === "Frame" ? incoming.message : incoming.reason)
      }, () => ends++)
      expect(seen).toEqual([1])
      inbound.push(Transport.frame(2))
      expect(seen).toEqual([1, 2])
      inbound.end()
      inbound.end()
      expect(ends).toBe(1)
      expect(inbound.push(Transport.frame(3))).toBe(false)
      stop()

      const other = Transport.unsafeMakeInbound()
      const stopped: Array<unknown> = []
      const stopOther = other.listen((incoming) => stopped.push(incoming), () => ends++)
      stopOther()
      // Stopped: frames are kept again (for a later listener), and the end no longer reaches it.
      other.push(Transport.frame("kept"))
      other.end()
      expect(stopped).toEqual([])
      expect(ends).toBe(1)
      const late: Array<unknown> = []
      other.listen((incoming) => late.push(incoming._tag === "Frame" ? incoming.message : undefined), () => ends++)
      expect(late).toEqual(["kept"])
      expect(ends).toBe(2)
    }))

  it.scoped("an in-memory pair that is connected and idle runs no fiber: its session and both engines listen without one", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      const context = yield* Layer.build(McpTest.layer(server, { name: "c", version: "1", revision: "2025-11-25" }))
        .pipe(
          Effect.supervised(supervisor)
        )
      const client = Context.get(context, McpClient.McpClient)
      yield* client.callTool("echo", { text: "hi" }).pipe(Effect.supervised(supervisor))
      // The handshake's and the call's timeout sweeper stop once nothing waits (they check every 50 ms).
      yield* TestClock.adjust("1 second")
      // McpTest starts its server's session with `McpServer.connect`; a forked `serve` made it 1, and a receiving fiber
      // per engine 3.
      const running = yield* supervisor.value
      expect(running).toEqual([])
    }))
})

describe("Transport.receiveStream", () => {
  it.scoped("a transport whose frames arrive as a Stream serves a client; the stream's end closes it", () =>
    Effect.gen(function*() {
      const toServer = yield* Queue.unbounded<Transport.Incoming>()
      const toClient = yield* Transport.makeInbound
      const serverSide: Transport.TransportService = {
        receive: Transport.receiveStream(Stream.fromQueue(toServer, { shutdown: true })),
        send: (message) =>
          Effect.sync(() => {
            toClient.push(Transport.frame(message))
          })
      }
      const clientSide: Transport.TransportService = {
        receive: toClient.receive,
        send: (message) => Effect.asVoid(Queue.offer(toServer, Transport.frame(message)))
      }
      const served = yield* McpServer.serve.pipe(
        Effect.provide(server),
        Effect.provideService(Transport.Transport, serverSide),
        Effect.scoped,
        Effect.fork
      )
      const client = yield* McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(
        Effect.provideService(Transport.Transport, clientSide)
      )
      const result = yield* client.callTool("echo", { text: "over a Stream" })
      expect(result.content).toEqual([{ type: "text", text: "over a Stream" }])
      yield* Queue.shutdown(toServer)
      yield* Fiber.join(served)
    }))
})

describe("McpServer.connect", () => {
  it.scoped("serves a connection without waiting for it: `closed` completes when the peer goes away", () =>
    Effect.gen(function*() {
      const registry = yield* Layer.build(server)
      const pairScope = yield* Scope.make()
      const pair = yield* Scope.extend(InMemoryTransport.makePair, pairScope)
      const connection = yield* McpServer.connect.pipe(
        Effect.provide(registry),
        Effect.provideService(Transport.Transport, pair.server)
      )
      const client = yield* McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(
        Effect.provideService(Transport.Transport, pair.client)
      )
      const result = yield* client.callTool("echo", { text: "connected" })
      expect(result.content).toEqual([{ type: "text", text: "connected" }])
      const waiting = yield* Effect.fork(connection.closed)
      yield* Effect.yieldNow()
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      expect(Context.get(registry, McpServer.McpServer).stats().connections).toBe(1)
      // Closing the pair's scope ends both directions: the server sees its peer go away.
      yield* Scope.close(pairScope, Exit.void)
      yield* Fiber.join(waiting)
      expect(Context.get(registry, McpServer.McpServer).stats().connections).toBe(0)
    }))

  it.effect("closing the scope ends the session", () =>
    Effect.gen(function*() {
      const registryScope = yield* Scope.make()
      const registry = yield* Layer.buildWithScope(server, registryScope)
      const pair = yield* Scope.extend(InMemoryTransport.makePair, registryScope)
      const connectionScope = yield* Scope.make()
      const connection = yield* McpServer.connect.pipe(
        Effect.provide(registry),
        Effect.provideService(Transport.Transport, pair.server),
        Scope.extend(connectionScope)
      )
      expect(Context.get(registry, McpServer.McpServer).stats().connections).toBe(1)
      yield* Scope.close(connectionScope, Exit.void)
      yield* connection.closed
      expect(Context.get(registry, McpServer.McpServer).stats().connections).toBe(0)
      yield* Scope.close(registryScope, Exit.void)
    }))
})

describe("services as values", () => {
  it.scoped("a client and a registry can be destructured and spread: their accessors are own properties", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(McpTest.layer(server, { name: "c", version: "1", revision: "2025-11-25" }))
      const client = Context.get(context, McpClient.McpClient)
      const { callTool } = client
      expect((yield* callTool("echo", { text: "destructured" })).content).toEqual([
        { type: "text", text: "destructured" }
      ])
      // A decorated client, as middleware would make it: every stream and the connection's end come along.
      const calls: Array<string> = []
      const decorated: McpClient.McpClientService = {
        ...client,
        callTool: (name, args, options) =>
          Effect.zipRight(Effect.sync(() => calls.push(name)), callTool(name, args, options))
      }
      expect(Stream.StreamTypeId in decorated.notifications).toBe(true)
      expect(Stream.StreamTypeId in decorated.toolListChanged).toBe(true)
      expect(Effect.isEffect(decorated.closed)).toBe(true)
      yield* decorated.callTool("echo", { text: "decorated" })
      expect(calls).toEqual(["echo"])
      const registry = Context.get(context, McpServer.McpServer)
      const { addTool, tools } = registry
      // A decorated registry keeps the runtime its connections share (moved from the registry's own accessors to
      // internal/server/runtime.ts): the same task store and hubs.
      const copy: McpServer.McpServerService = { ...registry, notifyResourceUpdated: () => Effect.void }
      expect(copy[RuntimeId]).toBe(registry[RuntimeId])
      expect(yield* copy[RuntimeId].tasks.list(copy[RuntimeId].nextTaskOwner())).toEqual([])
      const changes = yield* copy[RuntimeId].subscribeChanges()
      yield* addTool({ ...tools()[0]!, descriptor: { ...tools()[0]!.descriptor, name: "echo2" } })
      expect(copy.tools().map((t) => t.descriptor.name)).toEqual(["echo", "echo2"])
      expect(yield* Queue.take(changes)).toBe("tools")
    }))
})
