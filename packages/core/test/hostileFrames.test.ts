/**
 * Frames a hostile peer sends, at the engine on both sides: values nested thousands of levels deep in every
 * field, huge wrong-typed values, oversized batches and invalid responses. Each request gets exactly one answer
 * with its own id, nothing reflects the input back unbounded, every id is released, and the connection serves on.
 */
import { Errors, McpClient, McpServer } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { makeRawServer, rawPeer } from "./helpers.js"

const info = { name: "hostile-frames-test", version: "1.0.0" }

const Echo = McpServer.tool({
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})
const Readme = McpServer.resource({ uri: "file:///readme", name: "readme", read: Effect.succeed("hello") })
const Review = McpServer.prompt({ name: "review", handler: () => Effect.succeed("review it") })

const serverLayer = (options: Partial<McpServer.Options> = {}) =>
  Layer.mergeAll(Echo, Readme, Review).pipe(Layer.provideMerge(McpServer.layer({ ...info, ...options })))

/** An array nested `depth` levels deep. */
const deepArray = (depth: number): unknown => {
  let value: unknown = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

/** An object nested `depth` levels deep. */
const deepObject = (depth: number): unknown => {
  let value: unknown = {}
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

/** Where a hostile value goes: a request whose field at the end of the path holds it. */
const targets: ReadonlyArray<readonly [string, (value: unknown) => { method: string; params?: unknown }]> = [
  ["tool argument", (v) => ({ method: "tools/call", params: { name: "echo", arguments: { text: v } } })],
  ["tool name", (v) => ({ method: "tools/call", params: { name: v, arguments: {} } })],
  ["tool arguments", (v) => ({ method: "tools/call", params: { name: "echo", arguments: v } })],
  ["cursor", (v) => ({ method: "tools/list", params: { cursor: v } })],
  ["resource uri", (v) => ({ method: "resources/read", params: { uri: v } })],
  ["prompt name", (v) => ({ method: "prompts/get", params: { name: v } })],
  ["_meta", (v) => ({ method: "ping", params: { _meta: v } })],
  ["progress token", (v) => ({ method: "tools/list", params: { _meta: { progressToken: v } } })],
  ["params", (v) => ({ method: "tools/list", params: v })]
]

const hostileValues: ReadonlyArray<readonly [string, unknown]> = [
  ["an array 5,000 deep", deepArray(5_000)],
  ["an object 5,000 deep", deepObject(5_000)],
  ["an array 100,000 deep", deepArray(100_000)],
  ["an array 500 deep (under the bound)", deepArray(500)],
  ["an object 500 deep (under the bound)", deepObject(500)],
  ["a 1 MB string", "x".repeat(1_000_000)],
  ["a 1 MB array of numbers", Array.from({ length: 250_000 }, (_, i) => i)]
]

describe("a hostile client", () => {
  it.scoped("a deep or huge wrong value in any field gets one bounded answer with its id; the id is then free", () =>
    Effect.gen(function*() {
      const server = yield* Layer.build(serverLayer())
      const peer = yield* rawPeer(Layer.succeedContext(server))
      yield* peer.handshake("2025-06-18")
      let id = 0
      for (const [where, build] of targets) {
        for (const [what, value] of hostileValues) {
          const request = { jsonrpc: "2.0", id: ++id, ...build(value) }
          yield* peer.send(request)
          const answer = yield* peer.next
          const context = `${what} as the ${where}`
          expect(answer.id, context).toBe(id)
          // `_meta` and a progress token are open or ignored: a success is a fine answer there.
          if (answer.error !== undefined) {
            expect([-32600, -32602, -32002], context).toContain(answer.error.code)
            // Bounded, but for the URI a resource error names in its data (as the spec asks).
            const { data: _data, ...error } = answer.error
            expect(JSON.stringify(error).length, context).toBeLessThan(2_000)
          } else {
            // Only where the value is allowed: open `_meta`, an ignored token, a string for echo to echo.
            const allowed = ["_meta", "progress token", "tool arguments", "params"].includes(where) ||
              (where === "tool argument" && typeof value === "string")
            expect(allowed, `${context}: ${JSON.stringify(answer).slice(0, 200)}`).toBe(true)
          }
          // The same id again, well-formed: it was released.
          yield* peer.send({ jsonrpc: "2.0", id, method: "ping" })
          expect(yield* peer.next, context).toEqual({ jsonrpc: "2.0", id, result: {} })
        }
      }
      const stats = McpServer.McpServer.pipe(Effect.map((s) => s.stats()), Effect.provide(server))
      expect(yield* stats).toMatchObject({ inFlight: 0, pending: 0 })
    }))

  it.scoped("a deep id, method or envelope gets -32600 (with id null when the id cannot be read)", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(serverLayer())
      yield* peer.handshake("2025-06-18")
      yield* peer.send({ jsonrpc: "2.0", id: deepArray(5_000), method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: null, error: { code: -32600 } })
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: deepArray(5_000) })
      expect(yield* peer.next).toMatchObject({ id: 1, error: { code: -32600 } })
      yield* peer.send({ jsonrpc: deepObject(5_000), id: 2, method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: 2, error: { code: -32600 } })
      yield* peer.send({ jsonrpc: "2.0", id: deepArray(300), method: "ping" })
      const shallower = yield* peer.next
      expect(shallower).toMatchObject({ id: null, error: { code: -32600 } })
      expect(JSON.stringify(shallower).length).toBeLessThan(2_000)
      // A notification that is too deep is dropped, and the connection serves on.
      yield* peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: deepObject(5_000) })
      yield* peer.send({ jsonrpc: "2.0", id: 3, method: "ping" })
      expect(yield* peer.next).toEqual({ jsonrpc: "2.0", id: 3, result: {} })
    }))

  it.scoped("values that break a decoder or a formatter are bad input: -32602/-32600/-32022, bounded, never -32603", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(serverLayer())
      yield* peer.handshake("2025-11-25")
      // A union looks its tag up by the value: an object whose toString is no function throws there.
      const poisoned = { toString: 1, valueOf: null }
      yield* peer.send({
        jsonrpc: "2.0",
        id: 1,
        method: "completion/complete",
        params: { ref: { type: poisoned, name: "review" }, argument: { name: "a", value: "b" } }
      })
      expect(yield* peer.next).toMatchObject({ id: 1, error: { code: -32602 } })
      yield* peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: poisoned } })
      const args = yield* peer.next
      expect(args.id).toBe(2)
      expect(args.error?.code ?? (args.result.isError === true ? "isError" : "ok")).not.toBe(-32603)
      // Ids past the safe integers cannot be read back exactly: id null.
      yield* peer.send({ jsonrpc: "2.0", id: 1e308, method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: null, error: { code: -32600 } })
      yield* peer.send({ jsonrpc: "2.0", id: 2 ** 53, method: "ping" })
      expect(yield* peer.next).toMatchObject({ id: null, error: { code: -32600 } })
      // A stateless request naming a version that is an object, or a huge array: refused, quoted in a few characters.
      for (const version of [{ toString: {}, valueOf: {} }, Array.from({ length: 200_000 }, () => 0)]) {
        yield* peer.send({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/list",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": version } }
        })
        const refused = yield* peer.next
        expect(refused.id).toBe(3)
        expect([-32022, -32602, -32600]).toContain(refused.error.code)
        expect(JSON.stringify(refused).length).toBeLessThan(2_000)
      }
      yield* peer.send({ jsonrpc: "2.0", id: 4, method: "ping" })
      expect(yield* peer.next).toEqual({ jsonrpc: "2.0", id: 4, result: {} })
    }))

  it.scoped("maxDepth is an option: a server may allow deeper or fewer levels", () =>
    Effect.gen(function*() {
      const strict = yield* rawPeer(serverLayer({ maxDepth: 8 }))
      yield* strict.handshake("2025-06-18")
      yield* strict.send({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: deepObject(8) } })
      expect(yield* strict.next).toMatchObject({
        id: 1,
        error: { code: -32602, message: expect.stringContaining("8") }
      })
      const lenient = yield* rawPeer(serverLayer({ maxDepth: 1_000 }))
      yield* lenient.handshake("2025-06-18")
      yield* lenient.send({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { a: deepObject(900) } } })
      expect(yield* lenient.next).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
    }))

  it.scoped("a batch of more than maxBatchSize messages is refused whole; one at the bound is answered", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(serverLayer())
      yield* peer.handshake("2025-03-26")
      const pings = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))
      yield* peer.send(pings(101))
      const refused = yield* peer.next
      expect(refused).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("100") } })
      yield* peer.send(pings(100))
      const answered = yield* peer.next
      expect(answered).toHaveLength(100)
      // A deep item of a batch is that item's error; the others are answered.
      yield* peer.send([{ jsonrpc: "2.0", id: "a", method: "ping", params: { _meta: deepArray(5_000) } }, {
        jsonrpc: "2.0",
        id: "b",
        method: "ping"
      }])
      expect(yield* peer.next).toEqual([
        { jsonrpc: "2.0", id: "a", error: { code: -32602, message: "Invalid params: nested deeper than 512 levels" } },
        { jsonrpc: "2.0", id: "b", result: {} }
      ])
      const small = yield* rawPeer(serverLayer({ maxBatchSize: 2 }))
      yield* small.handshake("2025-03-26")
      yield* small.send(pings(3))
      expect(yield* small.next).toMatchObject({ id: null, error: { code: -32600 } })
    }))
})

/** A 2025-11-25 client connected to a raw server, the handshake accepted. */
const connectedClient = (server: Effect.Effect.Success<ReturnType<typeof makeRawServer>>) =>
  Effect.gen(function*() {
    const connecting = yield* Effect.fork(
      McpClient.make({ name: "c", version: "1", revision: "2025-11-25", requestTimeout: "60 seconds" }).pipe(
        Effect.provide(server.layer)
      )
    )
    yield* server.acceptHandshake
    return yield* Fiber.join(connecting)
  })

describe("a hostile server", () => {
  it.scoped("a response nested too deep, or not a response at all, fails its call at once; the client serves on", () =>
    Effect.gen(function*() {
      const server = yield* makeRawServer()
      const client = yield* connectedClient(server)
      const answers: ReadonlyArray<readonly [string, (id: unknown) => unknown]> = [
        ["a result 5,000 deep", (id) => ({ jsonrpc: "2.0", id, result: { tools: deepArray(5_000) } })],
        ["a result 100,000 deep", (id) => ({ jsonrpc: "2.0", id, result: deepObject(100_000) })],
        [
          "an error 5,000 deep",
          (id) => ({ jsonrpc: "2.0", id, error: { code: 1, message: "x", data: deepArray(5_000) } })
        ],
        ["a result that is a string", (id) => ({ jsonrpc: "2.0", id, result: "not an object" })],
        ["an error that is no error object", (id) => ({ jsonrpc: "2.0", id, error: deepArray(400) })],
        ["a wrong-typed result under the bound", (id) => ({ jsonrpc: "2.0", id, result: { tools: deepArray(500) } })],
        ["a 1 MB wrong-typed result", (id) => ({ jsonrpc: "2.0", id, result: { tools: "x".repeat(1_000_000) } })]
      ]
      for (const [what, answer] of answers) {
        const call = yield* Effect.fork(Effect.either(client.listTools()))
        const request = yield* server.next
        yield* server.send(answer(request.id))
        const outcome = yield* Fiber.join(call)
        expect(Either.isLeft(outcome), what).toBe(true)
        if (Either.isLeft(outcome)) {
          const error: { readonly _tag: string; readonly message?: string } = outcome.left
          expect(["TransportError", "ProtocolViolation", "JsonRpcError", "InvalidRequest"], what).toContain(error._tag)
          expect(String(error.message ?? "").length, what).toBeLessThan(2_000)
        }
        // The next call is answered as usual.
        const next = yield* Effect.fork(client.ping())
        const ping = yield* server.next
        yield* server.send({ jsonrpc: "2.0", id: ping.id, result: {} })
        yield* Fiber.join(next)
      }
      expect(client.stats()).toEqual({ pending: 0, inFlight: 0 })
    }))

  it.scoped("a server→client request nested too deep gets -32602 with its id", () =>
    Effect.gen(function*() {
      const server = yield* makeRawServer()
      yield* connectedClient(server)
      yield* server.send({ jsonrpc: "2.0", id: 9, method: "roots/list", params: { _meta: deepArray(5_000) } })
      expect(yield* server.next).toMatchObject({ id: 9, error: { code: -32602 } })
    }))

  it.scoped("a handshake answered with a deep result fails with HandshakeFailed at once", () =>
    Effect.gen(function*() {
      const server = yield* makeRawServer()
      const connecting = yield* Effect.fork(
        Effect.either(
          McpClient.make({ name: "c", version: "1", revision: "2025-11-25" }).pipe(Effect.provide(server.layer))
        )
      )
      const init = yield* server.next
      yield* server.send({ jsonrpc: "2.0", id: init.id, result: deepObject(20_000) })
      const outcome = yield* Fiber.join(connecting)
      expect(Either.isLeft(outcome) && outcome.left).toBeInstanceOf(Errors.HandshakeFailed)
    }))
})
