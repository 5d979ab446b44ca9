// The lifetime of a 2026-07-28 multi-round-trip `requestState` (issue 28, defect 10): a state is accepted for
// `requestStateMaxAge` after it was issued (default 10 minutes), and refused after that with the -32602 that a
// tampered state gets.
import { McpServer, RequestContext } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { rawPeer } from "./helpers.js"

const caps = { elicitation: { form: {} } }
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": caps
}

const Ask = McpServer.tool({
  name: "ask",
  input: Schema.Struct({}),
  handler: () =>
    Effect.map(
      RequestContext.elicit({
        message: "Name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } }
      }),
      (answer) => `hello ${String(answer.content?.name)}`
    )
})

const server = (options: Partial<McpServer.Options> = {}) =>
  Ask.pipe(Layer.provideMerge(McpServer.layer({ name: "asker", version: "1", ...options })))

const answer = { "input-0": { action: "accept", content: { name: "Ada" } } }

/** A raw 2026-07-28 peer of the server: `ask` answers the first round, `retry` sends the state back. */
const peerOf = (options: Partial<McpServer.Options> = {}) =>
  Effect.gen(function*() {
    const peer = yield* rawPeer(server(options))
    let id = 0
    const call = (extra: object) =>
      peer.send({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { _meta: meta, name: "ask", arguments: {}, ...extra }
      }).pipe(Effect.zipRight(peer.next))
    const ask = Effect.map(call({}), (response) => {
      expect(response.result.resultType).toBe("input_required")
      return String(response.result.requestState)
    })
    const retry = (requestState: string) => call({ requestState, inputResponses: answer })
    return { ask, retry }
  })

const refusal = {
  code: -32602,
  message: "Invalid requestState: it was not issued by this server for this request"
}

describe("requestState lifetime", () => {
  it.scoped("a state is accepted up to 10 minutes after it was issued, and refused after", () =>
    Effect.gen(function*() {
      const { ask, retry } = yield* peerOf()
      const young = yield* ask
      yield* TestClock.adjust("10 minutes")
      expect((yield* retry(young)).result).toMatchObject({
        resultType: "complete",
        content: [{ type: "text", text: "hello Ada" }]
      })
      const old = yield* ask
      yield* TestClock.adjust("600001 millis")
      expect((yield* retry(old)).error).toEqual(refusal)
    }))

  it.scoped("requestStateMaxAge sets the lifetime", () =>
    Effect.gen(function*() {
      const { ask, retry } = yield* peerOf({ requestStateMaxAge: "30 seconds" })
      const young = yield* ask
      yield* TestClock.adjust("30 seconds")
      expect((yield* retry(young)).result.resultType).toBe("complete")
      const old = yield* ask
      yield* TestClock.adjust("30001 millis")
      expect((yield* retry(old)).error).toEqual(refusal)
    }))

  it.scoped("a tampered state is refused with the same error, however young", () =>
    Effect.gen(function*() {
      const { ask, retry } = yield* peerOf()
      const state = yield* ask
      const [payload, mac] = state.split(".")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Array<unknown>
      // Pushing the issue time forward (to live longer) breaks the seal.
      const later = [...claims.slice(0, -1), Number(claims.at(-1)) + 60_000]
      const forged = `${Buffer.from(JSON.stringify(later)).toString("base64url")}.${mac}`
      expect((yield* retry(forged)).error).toEqual(refusal)
      expect((yield* retry(`${state}x`)).error).toEqual(refusal)
      expect((yield* retry(state)).result.resultType).toBe("complete")
    }))

  it.scoped("a state sealed without an issue time (by an older version, under the same key) is refused", () =>
    Effect.gen(function*() {
      const key = "a shared secret"
      const { retry } = yield* peerOf({ requestStateKey: key })
      const payload = Buffer.from(JSON.stringify(["tools/call", "ask", {}]))
      const mac = Buffer.from(
        yield* Effect.promise(async () => {
          const k = await crypto.subtle.importKey(
            "raw",
            new TextEncoder().encode(key),
            { name: "HMAC", hash: "SHA-256" },
            false,
            ["sign"]
          )
          return crypto.subtle.sign("HMAC", k, payload)
        })
      )
      expect((yield* retry(`${payload.toString("base64url")}.${mac.toString("base64url")}`)).error).toEqual(refusal)
    }))
})
