/**
 * Required scopes of tools, resources and prompts without HTTP: a request whose identity lacks a scope (or has none,
 * as on stdio or in memory without authentication) is refused with -32001 before the handler runs and before its
 * arguments are decoded; one whose identity grants every scope reaches the handler. The scopes are not part of the
 * descriptor clients list.
 */
import { McpServer, Transport } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { connect } from "./helpers.js"

const ran: Array<string> = []

const server = Layer.mergeAll(
  McpServer.tool({
    name: "echo",
    scopes: ["mcp:write"],
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.sync(() => (ran.push("echo"), text))
  }),
  McpServer.tool({ name: "open", input: Schema.Struct({}), handler: () => Effect.succeed("open") }),
  McpServer.prompt({
    name: "secret",
    scopes: ["mcp:write"],
    handler: () => Effect.sync(() => (ran.push("prompt"), "psst"))
  }),
  McpServer.resource({
    uri: "test://secret",
    name: "secret",
    scopes: ["mcp:read", "mcp:write"],
    read: Effect.sync(() => (ran.push("resource"), "hidden"))
  }),
  McpServer.resourceTemplate({
    uriTemplate: "test://secret/{id}",
    name: "secrets",
    scopes: ["mcp:write"],
    handler: (params) => Effect.sync(() => (ran.push("template"), params.id))
  })
).pipe(Layer.provideMerge(McpServer.layer({ name: "scopes", version: "1.0.0" })))

/** A raw peer whose every frame carries `auth` (what an authenticating transport stamps on it). */
const peer = (auth: Transport.AuthInfo | undefined) =>
  Effect.gen(function*() {
    const toServer = yield* Transport.makeInbound
    const fromServer = yield* Queue.unbounded<any>()
    yield* McpServer.serve.pipe(
      Effect.provide(yield* Layer.build(server)),
      Effect.provideService(Transport.Transport, {
        receive: toServer.receive,
        send: (m) => Queue.offer(fromServer, m).pipe(Effect.asVoid)
      }),
      Effect.forkScoped
    )
    let id = 0
    const request = (method: string, params: object) =>
      Effect.gen(function*() {
        toServer.push(Transport.frame({ jsonrpc: "2.0", id: ++id, method, params }, auth === undefined ? {} : { auth }))
        return yield* Queue.take(fromServer)
      })
    yield* request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" }
    })
    toServer.push(Transport.frame({ jsonrpc: "2.0", method: "notifications/initialized" }))
    return request
  })

const calls = [
  ["tools/call", { name: "echo", arguments: { text: "hi" } }],
  ["prompts/get", { name: "secret" }],
  ["resources/read", { uri: "test://secret" }],
  ["resources/read", { uri: "test://secret/7" }]
] as const

describe("required scopes without HTTP", () => {
  it.scoped("an anonymous request (in memory, no authentication) is refused with -32001 before the handler", () =>
    Effect.gen(function*() {
      ran.length = 0
      const client = yield* connect(server)
      const refused = yield* Effect.flip(client.callTool("echo", { text: "hi" }))
      expect(McpError.isMcpError(refused) && refused.code).toBe(McpError.codes.Unauthorized)
      expect(refused.message).toBe("Insufficient scope: the tool echo requires mcp:write")
      expect((yield* client.callTool("open", {})).content).toEqual([{ type: "text", text: "open" }])
      expect(ran).toEqual([])
      // The descriptor clients list does not carry the scopes.
      const echo = (yield* client.listTools()).find((t) => t.name === "echo")
      expect(echo).toBeDefined()
      expect(Object.keys(echo!)).not.toContain("scopes")
    }))

  it.scoped("a token without the scope is refused, each definition kind, even with arguments that do not decode", () =>
    Effect.gen(function*() {
      ran.length = 0
      const request = yield* peer({ token: "t", clientId: "c", scopes: ["mcp:read"] })
      for (const [method, params] of calls) {
        const response = yield* request(method, params)
        expect(response.error?.code).toBe(-32001)
        expect(response.error?.data).toMatchObject({ error: "insufficient_scope" })
      }
      const badArgs = yield* request("tools/call", { name: "echo", arguments: { text: 42 } })
      expect(badArgs.error?.code).toBe(-32001)
      expect(ran).toEqual([])
    }))

  it.scoped("a token with every scope reaches the handlers", () =>
    Effect.gen(function*() {
      ran.length = 0
      const request = yield* peer({ token: "t", clientId: "c", scopes: ["mcp:read", "mcp:write"] })
      for (const [method, params] of calls) {
        const response = yield* request(method, params)
        expect(response.error).toBeUndefined()
      }
      expect(ran).toEqual(["echo", "prompt", "resource", "template"])
    }))
})
