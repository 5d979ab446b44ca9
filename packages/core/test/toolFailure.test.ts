/**
 * Typed tool failures on the wire: valid for every client when the tool declares an output schema (no
 * `structuredContent` on the error), decoded by our client with the tool's failure schema at every revision
 * (from `_meta["effect-mcp/failure"]`), and our client checks an error's `structuredContent` against the
 * outputSchema as the official SDK 1.x client does.
 */
import { McpServer, Tool } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { connect, rawPeer } from "./helpers.js"

class Overdrawn extends Schema.TaggedError<Overdrawn>()("Overdrawn", { balance: Schema.Number }) {}

/** A tool with an output schema and a failure schema. */
const Withdraw = McpServer.tool({
  name: "withdraw",
  input: Schema.Struct({ amount: Schema.Number }),
  output: Schema.Struct({ balance: Schema.Number }),
  failure: Overdrawn,
  handler: ({ amount }) =>
    amount > 100 ? Effect.fail(new Overdrawn({ balance: 100 })) : Effect.succeed({ balance: 100 - amount })
})

/** A content tool with a failure schema (no output schema). */
const Lookup = McpServer.tool({
  name: "lookup",
  input: Schema.Struct({ key: Schema.String }),
  failure: Schema.Struct({ missing: Schema.String }),
  handler: ({ key }) => (key === "known" ? Effect.succeed("found") : Effect.fail({ missing: key }))
})

/** A failure that is not an object: only `_meta` can carry it as a value. */
const Gate = McpServer.tool({
  name: "gate",
  input: Schema.Struct({}),
  output: Schema.Struct({ open: Schema.Boolean }),
  failure: Schema.Literal("locked", "jammed"),
  handler: () => Effect.fail("jammed" as const)
})

const server = Layer.mergeAll(Withdraw, Lookup, Gate).pipe(
  Layer.provideMerge(McpServer.layer({ name: "failures", version: "1.0.0" }))
)

const revisions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", undefined] as const

describe("typed tool failures", () => {
  it.scoped("on the wire: no structuredContent with an output schema, the value under _meta and as JSON text", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(server)
      yield* peer.handshake("2025-11-25")
      const call = (id: number, name: string, args: object) =>
        Effect.zipRight(
          peer.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
          peer.next
        )
      const withdraw = (yield* call(1, "withdraw", { amount: 500 })).result
      expect(withdraw).toEqual({
        content: [{ type: "text", text: expect.any(String) }],
        isError: true,
        _meta: { [Tool.failureKey]: { _tag: "Overdrawn", balance: 100 } }
      })
      expect(JSON.parse(withdraw.content[0].text)).toEqual({ _tag: "Overdrawn", balance: 100 })
      const gate = (yield* call(2, "gate", {})).result
      expect(gate).toEqual({
        content: [{ type: "text", text: "jammed" }],
        isError: true,
        _meta: { [Tool.failureKey]: "jammed" }
      })
      // Without an output schema nothing binds structuredContent: the failure is there too.
      const lookup = (yield* call(3, "lookup", { key: "nope" })).result
      expect(lookup).toEqual({
        content: [{ type: "text", text: JSON.stringify({ missing: "nope" }) }],
        isError: true,
        structuredContent: { missing: "nope" },
        _meta: { [Tool.failureKey]: { missing: "nope" } }
      })
    }))

  for (const revision of revisions) {
    it.scoped(`our client decodes each typed failure with its failure schema at ${revision ?? "2026-07-28"}`, () =>
      Effect.gen(function*() {
        const client = yield* connect(server, {
          client: { name: "c", version: "1", ...(revision === undefined ? {} : { revision }) }
        })
        yield* client.listTools()
        const failed = yield* client.callTool("withdraw", { amount: 500 })
        expect(failed.isError).toBe(true)
        const overdrawn = Tool.decodeFailure(Overdrawn)(failed)
        expect(Option.isSome(overdrawn) && overdrawn.value).toBeInstanceOf(Overdrawn)
        expect(Option.getOrThrow(overdrawn).balance).toBe(100)
        const ok = yield* client.callTool("withdraw", { amount: 30 })
        expect(Option.isNone(Tool.decodeFailure(Overdrawn)(ok))).toBe(true)
        const gate = yield* client.callTool("gate", {})
        expect(Tool.decodeFailure(Schema.Literal("locked", "jammed"))(gate)).toEqual(Option.some("jammed"))
        const lookup = yield* client.callTool("lookup", { key: "nope" })
        expect(Tool.decodeFailure(Schema.Struct({ missing: Schema.String }))(lookup)).toEqual(
          Option.some({ missing: "nope" })
        )
      }))
  }

  it.scoped("decodeFailure reads a peer's structuredContent when it sets no _meta, and nothing the schema rejects", () =>
    Effect.sync(() => {
      const decode = Tool.decodeFailure(Schema.Struct({ missing: Schema.String }))
      expect(decode({ content: [], isError: true, structuredContent: { missing: "k" } })).toEqual(
        Option.some({ missing: "k" })
      )
      expect(decode({ content: [], isError: true, _meta: { [Tool.failureKey]: { missing: 1 } } })).toEqual(
        Option.none()
      )
      expect(decode({ content: [], structuredContent: { missing: "k" } })).toEqual(Option.none())
    }))

  it.scoped("our client rejects an error whose structuredContent violates the outputSchema, as SDK 1.x does", () =>
    Effect.gen(function*() {
      // A server that answers errors the way the official SDK 1.x client rejects.
      const lying = server.pipe(Layer.tap((ctx) => {
        const s = Context.get(ctx, McpServer.McpServer)
        const t = s.tool("withdraw")!
        return s.addTool({
          ...t,
          call: (args) =>
            (args as { amount: number }).amount > 100
              ? Effect.succeed({ content: [], isError: true, structuredContent: { _tag: "Overdrawn", balance: 100 } })
              : Effect.succeed({ content: [], isError: true })
        })
      }))
      const client = yield* connect(lying)
      yield* client.listTools()
      const rejected = yield* Effect.either(client.callTool("withdraw", { amount: 500 }))
      expect(Either.isLeft(rejected) && rejected.left).toMatchObject({
        _tag: "ProtocolViolation",
        reason: expect.stringContaining("an error whose structuredContent violates its outputSchema")
      })
      // An error without structuredContent is fine, as for every official client.
      expect((yield* client.callTool("withdraw", { amount: 5 })).isError).toBe(true)
    }))
})

describe("a failure the tool does not declare", () => {
  /** A tool whose handler's error type was cast away: the value must not reach the wire. */
  const Leaky = McpServer.tool({
    name: "leaky",
    input: Schema.Struct({}),
    handler: () =>
      Schema.decodeUnknown(Schema.String)(42).pipe(
        Effect.mapError((e) => e as unknown as Tool.ToolError)
      )
  })

  it.scoped("is the handler's bug: -32603 with nothing of the value, not its text as an error result", () =>
    Effect.gen(function*() {
      const peer = yield* rawPeer(Leaky.pipe(Layer.provideMerge(McpServer.layer({ name: "leaky", version: "1" }))))
      yield* peer.handshake("2025-11-25")
      yield* peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "leaky", arguments: {} } })
      const answer = yield* peer.next
      expect(answer).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } })
    }))
})
