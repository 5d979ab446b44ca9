import { McpServer } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { connect, messages, meta2026, post, serve, tools } from "./helpers.js"

const Sql = McpServer.tool({
  name: "sql",
  input: Schema.Struct({
    region: Schema.String.annotations({ jsonSchema: { "x-mcp-header": "Region" } }),
    shard: Schema.optional(Schema.Int.annotations({ jsonSchema: { type: "integer", "x-mcp-header": "Shard" } })),
    query: Schema.String
  }),
  handler: ({ query, region }) => Effect.succeed(`${region}: ${query}`)
})

const registrations = Layer.merge(tools(), Sql)

const sqlCall = (args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "sql", arguments: args, _meta: meta2026 }
})

const base = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "sql" }

describe("x-mcp-header (Mcp-Param-*)", () => {
  it.scopedLive("the server checks mirrored parameters against the body", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({}, registrations)
      const missing = yield* post(url, sqlCall({ region: "us-west1", query: "q" }), base)
      expect(missing.status).toBe(400)
      expect((yield* messages(missing))[0].error.code).toBe(-32020)
      const wrong = yield* post(url, sqlCall({ region: "us-west1", query: "q" }), {
        ...base,
        "mcp-param-region": "eu-west1"
      })
      expect(wrong.status).toBe(400)
      const right = yield* post(url, sqlCall({ region: "us-west1", shard: 42, query: "q" }), {
        ...base,
        "mcp-param-region": "us-west1",
        "mcp-param-shard": "42.0"
      })
      expect(right.status).toBe(200)
      const encoded = yield* post(url, sqlCall({ region: "Zürich", query: "q" }), {
        ...base,
        "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=`
      })
      expect(encoded.status).toBe(200)
    }))

  it.scopedLive("McpHttpClient mirrors them once it has listed the tools", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({}, registrations)
      const client = yield* connect(url)
      expect(client.stateless).toBe(true)
      yield* client.listTools()
      expect((yield* client.listTools()).map((t) => t.name)).toContain("sql")
      const result = yield* client.callTool("sql", { region: "Zürich", shard: 7, query: "select 1" })
      expect((result.content[0] as { text: string }).text).toBe("Zürich: select 1")
    }))

  it.scopedLive("a tool with an invalid annotation is left out of the client's list", () =>
    Effect.gen(function*() {
      const Bad = McpServer.tool({
        name: "bad",
        input: Schema.Struct({
          ratio: Schema.Number.annotations({ jsonSchema: { type: "number", "x-mcp-header": "Ratio" } })
        }),
        handler: () => Effect.succeed("never")
      })
      const { url } = yield* serve({}, Layer.merge(tools(), Bad))
      const client = yield* connect(url)
      const names = (yield* client.listTools()).map((t) => t.name)
      expect(names).toContain("echo")
      expect(names).not.toContain("bad")
    }))

  it.scopedLive("a call the server refuses with -32020 makes the client learn the tool's headers and retry", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({}, registrations)
      const client = yield* connect(url)
      const result = yield* client.callTool("sql", { region: "eu-north1", query: "select 2" })
      expect((result.content[0] as { text: string }).text).toBe("eu-north1: select 2")
    }))
})
