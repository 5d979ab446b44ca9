/**
 * Fuzz over Streamable HTTP, the envelopes: 10,000 generated POSTs (fast-check, fixed seed; `EFFECT_MCP_FUZZ_FRAMES`
 * sets how many) into a real server child
 * (`examples/everything --http`), in a 2025-11-25 session and statelessly under 2026-07-28: random text,
 * truncated and deeply nested JSON, bad envelopes and ids, wrong params for every method, unknown and huge
 * methods, huge strings, responses with unknown ids, unknown notifications, headers that contradict the body.
 * Every request gets its exact error code with its id, what needs no answer gets 202, no answer is a 5xx,
 * the process never exits, and a well-formed call still succeeds afterwards. (Hostile values inside params, from
 * the schemas: fuzz.test.ts.)
 */
import { expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { adapter } from "./helpers.js"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const FRAMES = Number(process.env.EFFECT_MCP_FUZZ_FRAMES ?? 10_000)
const HOW_MANY = FRAMES.toLocaleString("en")
const IN_FLIGHT = 16

/** What a POST must get back. */
type Expect =
  | { readonly kind: "error"; readonly id: string | number | null; readonly code: number }
  | { readonly kind: "result"; readonly id: string | number }
  | { readonly kind: "accepted" }

/** One POST: its body, whether it speaks in the session or statelessly, its extra headers, its answer. */
interface Post {
  readonly body: string
  readonly era: "session" | "stateless"
  readonly headers?: Record<string, string>
  readonly expect: Expect
}

const meta2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {}
}

const request = (id: string | number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** Params every one of these methods must refuse with -32602 in a session. */
const badParams: ReadonlyArray<readonly [string, unknown]> = [
  ["tools/call", { name: 5 }],
  ["tools/call", { arguments: {} }],
  ["tools/list", { cursor: 5 }],
  ["resources/read", {}],
  ["resources/read", { uri: ["x"] }],
  ["resources/templates/list", { cursor: {} }],
  ["resources/subscribe", { uri: 1 }],
  ["resources/unsubscribe", {}],
  ["prompts/get", { name: [] }],
  ["prompts/list", { cursor: false }],
  ["completion/complete", { ref: 1 }],
  ["logging/setLevel", { level: "loud" }]
]

/** Stateless requests whose headers match but whose params are wrong: -32602. */
const badStatelessParams: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, string>]> = [
  ["tools/call", { name: "echo", arguments: 5 }, { "mcp-name": "echo" }],
  ["tools/list", { cursor: 5 }, {}],
  ["prompts/list", { cursor: [] }, {}],
  ["completion/complete", { ref: 1 }, {}]
]

const isJson = (s: string) => {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

/** A POST for a request id `n` (ids are unique per POST). */
const post: fc.Arbitrary<(n: number) => Post> = fc.oneof(
  // random text: not JSON is -32700, JSON that is not an object is -32600, both with id null
  fc.string({ unit: "grapheme", maxLength: 60 }).filter((s) => s.trim() !== "").filter((s) => {
    if (!isJson(s)) return true
    const v = JSON.parse(s)
    return typeof v !== "object" || v === null
  }).map((s) => () => ({
    body: s,
    era: "session" as const,
    expect: { kind: "error" as const, id: null, code: isJson(s) ? -32600 : -32700 }
  })),
  // a valid request cut short
  fc.double({ min: 0.05, max: 0.95, noNaN: true }).map((cut) => (n: number) => {
    const full = request(n, "tools/call", { name: "echo", arguments: { text: "cut" } })
    return {
      body: full.slice(0, Math.max(1, Math.floor(full.length * cut))),
      era: "session" as const,
      expect: { kind: "error" as const, id: null, code: -32700 }
    }
  }),
  // deeply nested JSON: an array (a batch, refused on 2025-11-25) or an object, both -32600 with id null
  fc.tuple(fc.integer({ min: 100, max: 3000 }), fc.boolean()).map(([depth, array]) => () => ({
    body: array ? "[".repeat(depth) + "]".repeat(depth) : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`,
    era: "session" as const,
    expect: { kind: "error" as const, id: null, code: -32600 }
  })),
  // wrong params for a known method, in the session
  fc.constantFrom(...badParams).map(([method, params]) => (n: number) => ({
    body: request(n, method, params),
    era: "session" as const,
    expect: { kind: "error" as const, id: n, code: -32602 }
  })),
  // wrong params for a known method, statelessly, with the headers right
  fc.constantFrom(...badStatelessParams).map(([method, params, headers]) => (n: number) => ({
    body: request(n, method, { ...params, _meta: meta2026 }),
    era: "stateless" as const,
    headers: { "mcp-method": method, ...headers },
    expect: { kind: "error" as const, id: n, code: -32602 }
  })),
  // unknown methods, some with huge names, both ways
  fc.tuple(fc.string({ minLength: 1, maxLength: 30 }), fc.boolean(), fc.boolean()).map(
    ([m, huge, stateless]) => (n: number) => {
      const method = `x-${huge ? "m".repeat(100_000) : m}`
      // a header carries only a short, plain method name; any other gets a contradicting header
      const headerOk = !huge && encodeURIComponent(method) === method
      return stateless
        ? {
          body: request(`id-${n}`, method, { _meta: meta2026 }),
          era: "stateless" as const,
          headers: { "mcp-method": headerOk ? method : "x" },
          expect: headerOk
            ? { kind: "error" as const, id: `id-${n}`, code: -32601 }
            : { kind: "error" as const, id: `id-${n}`, code: -32020 }
        }
        : {
          body: request(`id-${n}`, method),
          era: "session" as const,
          expect: { kind: "error" as const, id: `id-${n}`, code: -32601 }
        }
    }
  ),
  // stateless headers that contradict the body: -32020 with the request's id
  fc.constantFrom<(n: number) => Pick<Post, "body" | "headers">>(
    (n) => ({
      body: request(n, "tools/call", { name: "echo", _meta: meta2026 }),
      headers: { "mcp-method": "tools/call", "mcp-name": "other" }
    }),
    (n) => ({
      body: request(n, "tools/call", { name: "echo", _meta: meta2026 }),
      headers: { "mcp-method": "tools/call" }
    }),
    (n) => ({ body: request(n, "tools/list", { _meta: meta2026 }), headers: { "mcp-method": "prompts/list" } }),
    (n) => ({ body: request(n, "tools/list", { _meta: meta2026 }), headers: {} }),
    (n) => ({ body: request(n, "tools/list"), headers: { "mcp-method": "tools/list" } })
  ).map((make) => (n: number) => ({
    ...make(n),
    era: "stateless" as const,
    expect: { kind: "error" as const, id: n, code: -32020 }
  })),
  // a bad envelope with a good id: -32600 with that id
  fc.constantFrom<Record<string, unknown>>({ jsonrpc: "1.0" }, { params: 5 }, { params: [] }, { params: "x" }).map(
    (bad) => (n: number) => ({
      body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "ping", ...bad }),
      era: "session" as const,
      expect: { kind: "error" as const, id: n, code: -32600 }
    })
  ),
  // an id that is not a JSON-RPC id: -32600 with id null
  fc.constantFrom<unknown>(1.5, true, null, {}, []).map((id) => () => ({
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
    era: "session" as const,
    expect: { kind: "error" as const, id: null, code: -32600 }
  })),
  // responses to requests never sent, and unknown notifications: accepted, never answered
  fc.string({ maxLength: 20 }).map((s) => (n: number) => ({
    body: JSON.stringify({ jsonrpc: "2.0", id: `unknown-${n}-${s}`, result: { s } }),
    era: "session" as const,
    expect: { kind: "accepted" as const }
  })),
  fc.string({ maxLength: 20 }).map((s) => () => ({
    body: JSON.stringify({ jsonrpc: "2.0", method: `notifications/x-${s}`, params: { s } }),
    era: "session" as const,
    expect: { kind: "accepted" as const }
  })),
  // a huge string that is fine: it is echoed back, both ways
  fc.tuple(fc.integer({ min: 10_000, max: 200_000 }), fc.boolean()).map(([size, stateless]) => (n: number) => {
    const args = { name: "echo", arguments: { text: "x".repeat(size) } }
    return stateless
      ? {
        body: request(n, "tools/call", { ...args, _meta: meta2026 }),
        era: "stateless" as const,
        headers: { "mcp-method": "tools/call", "mcp-name": "echo" },
        expect: { kind: "result" as const, id: n }
      }
      : { body: request(n, "tools/call", args), era: "session" as const, expect: { kind: "result" as const, id: n } }
  }),
  // plain valid requests in between
  fc.constant((n: number) => ({
    body: request(n, "ping"),
    era: "session" as const,
    expect: { kind: "result" as const, id: n }
  })),
  fc.constant((n: number) => ({
    body: request(n, "tools/list", { _meta: meta2026 }),
    era: "stateless" as const,
    headers: { "mcp-method": "tools/list" },
    expect: { kind: "result" as const, id: n }
  }))
)

/** Starts the everything example over HTTP on a free loopback port; resolves with its URL. */
const start = () => {
  const child = spawn(process.execPath, [everything, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
  const url = new Promise<string>((ok, ko) => {
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (line) => line.startsWith("LISTENING ") && ok(line.slice("LISTENING ".length)))
    child.on("exit", (code) => ko(new Error(`the server exited with ${code}`)))
  })
  return { child, url }
}

const baseHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" }

// The server is a child process whatever the adapter: the http-platform and http-web projects would only run it again.
it.skipIf(adapter !== "node")(
  `${HOW_MANY} generated POSTs: every request gets its error code and id, the server keeps serving`,
  async () => {
    const makers = fc.sample(post, { numRuns: FRAMES, seed: 2026 })
    const posts = makers.map((make, i) => make(i + 100))
    const { child, url: listening } = start()
    try {
      const url = await listening
      const opened = await fetch(url, {
        method: "POST",
        headers: baseHeaders,
        body: request(0, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "0" }
        })
      })
      const sessionId = opened.headers.get("mcp-session-id")!
      await opened.text()
      const session = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }
      const initialized = await fetch(url, {
        method: "POST",
        headers: { ...baseHeaders, ...session },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
      })
      expect(initialized.status).toBe(202)

      const send = async (p: Post) => {
        const headers = p.era === "session"
          ? { ...baseHeaders, ...session }
          : { ...baseHeaders, "mcp-protocol-version": "2026-07-28", ...p.headers }
        const response = await fetch(url, { method: "POST", headers, body: p.body })
        const text = await response.text()
        return { status: response.status, type: response.headers.get("content-type") ?? "", text }
      }
      /** The one JSON-RPC message of an answer, JSON or SSE. */
      const messageOf = (answer: { type: string; text: string }) => {
        if (answer.type.includes("application/json")) return JSON.parse(answer.text)
        const data = answer.text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
        const messages = data.map((l) => JSON.parse(l.slice(6))).filter((m) => !("method" in m))
        expect(messages).toHaveLength(1)
        return messages[0]
      }

      let next = 0
      const failures: Array<unknown> = []
      const worker = async () => {
        while (next < posts.length) {
          const p = posts[next++]!
          const answer = await send(p)
          const got = p.expect.kind === "accepted"
            ? { status: answer.status }
            : (() => {
              const m = messageOf(answer)
              return p.expect.kind === "error"
                ? { id: m.id, code: m.error?.code }
                : { id: m.id, result: m.result !== undefined }
            })()
          const want = p.expect.kind === "accepted"
            ? { status: 202 }
            : p.expect.kind === "error"
            ? { id: p.expect.id, code: p.expect.code }
            : { id: p.expect.id, result: true }
          if (answer.status >= 500 || JSON.stringify(got) !== JSON.stringify(want)) {
            failures.push({ body: p.body.slice(0, 200), era: p.era, status: answer.status, got, want })
          }
        }
      }
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
      expect(failures.length === 0 ? [] : [failures.length, ...failures.slice(0, 5)]).toEqual([])

      // duplicate ids in flight in one session: the second is refused, the first still answers. The first is
      // test_reconnection: it logs on its stream once its handler runs, then takes 450 ms, longer than the server's
      // SSE lifetime, so its result is read where a client finds it: resuming the stream with Last-Event-ID.
      const first = await fetch(url, {
        method: "POST",
        headers: { ...baseHeaders, ...session },
        body: request("dup", "tools/call", { name: "test_reconnection", arguments: {} })
      })
      let stream = ""
      /** Reads a stream into `stream` until `until` holds (true) or the stream ends (false). */
      const read = async (reader: ReadableStreamDefaultReader<string>, until: () => boolean) => {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          stream += chunk.value
          if (until()) return true
        }
        return false
      }
      const answered = () => /"id":"dup","result"/.test(stream)
      const firstStream = first.body!.pipeThrough(new TextDecoderStream()).getReader()
      await read(firstStream, () => stream.includes("notifications/message"))
      const second = await send({ body: request("dup", "ping"), era: "session", expect: { kind: "accepted" } })
      expect(messageOf(second)).toMatchObject({ id: "dup", error: { code: -32600 } })
      await read(firstStream, answered)
      for (let tries = 0; !answered() && tries < 20; tries++) {
        const lastEventId = [...stream.matchAll(/^id: (.+)$/gm)].at(-1)?.[1] ?? ""
        const resume = await fetch(url, {
          method: "GET",
          headers: { accept: "text/event-stream", ...session, "last-event-id": lastEventId }
        })
        const resumed = resume.body!.pipeThrough(new TextDecoderStream()).getReader()
        if (await read(resumed, answered)) await resumed.cancel()
      }
      await firstStream.cancel()
      expect(messageOf({ type: "text/event-stream", text: stream })).toMatchObject({
        id: "dup",
        result: { content: expect.any(Array) }
      })

      // and a well-formed call after all that garbage, both ways
      const last = await send({
        body: request("last", "tools/call", { name: "echo", arguments: { text: "still here" } }),
        era: "session",
        expect: { kind: "result", id: "last" }
      })
      expect(messageOf(last)).toMatchObject({ result: { content: [{ type: "text", text: "still here" }] } })
      const stateless = await send({
        body: request("last", "tools/call", { name: "echo", arguments: { text: "still here" }, _meta: meta2026 }),
        era: "stateless",
        headers: { "mcp-method": "tools/call", "mcp-name": "echo" },
        expect: { kind: "result", id: "last" }
      })
      expect(messageOf(stateless)).toMatchObject({ result: { content: [{ type: "text", text: "still here" }] } })
      expect(child.exitCode).toBeNull()
    } finally {
      child.kill("SIGTERM")
      await new Promise((ok) => (child.exitCode === null ? child.on("exit", ok) : ok(undefined)))
    }
  },
  300_000
)
