/**
 * Fuzz: 10,000 generated frames (fast-check, fixed seed) into a real stdio server child: random text,
 * truncated and deeply nested JSON, bad envelopes and ids, wrong params for every method, unknown methods,
 * huge strings, responses with unknown ids, unknown notifications. Every request gets the right error code
 * with its id, nothing else gets an answer, the process never exits, and a well-formed call still succeeds.
 */
import { expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const FRAMES = Number(process.env.EFFECT_MCP_FUZZ_FRAMES ?? 10_000)

type Expect =
  | { readonly kind: "error"; readonly id: string | number | null; readonly code: number }
  | { readonly kind: "result"; readonly id: string | number }
  | { readonly kind: "none" }

interface Frame {
  readonly text: string
  readonly expect: Expect
}

const request = (id: string | number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** Params every one of these methods must refuse with -32602. */
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

const noNewline = (s: string) => !/[\n\r]/.test(s) && s.trim() !== ""

/** A frame for a request id `n` (ids are unique per frame, so answers can be matched). */
const frame: fc.Arbitrary<(n: number) => Frame> = fc.oneof(
  // random text: not JSON is -32700, JSON that is not an object is -32600, both with id null
  fc.string({ unit: "grapheme", maxLength: 60 }).filter(noNewline).filter((s) => {
    try {
      const v = JSON.parse(s)
      return typeof v !== "object" || v === null
    } catch {
      return true
    }
  }).map((s) => () => {
    let parsed = true
    try {
      JSON.parse(s)
    } catch {
      parsed = false
    }
    return { text: s, expect: { kind: "error" as const, id: null, code: parsed ? -32600 : -32700 } }
  }),
  // a valid request cut short
  fc.double({ min: 0.05, max: 0.95, noNaN: true }).map((cut) => (n: number) => {
    const full = request(n, "tools/call", { name: "echo", arguments: { text: "cut" } })
    return {
      text: full.slice(0, Math.max(1, Math.floor(full.length * cut))),
      expect: { kind: "error" as const, id: null, code: -32700 }
    }
  }),
  // deeply nested JSON: an array (a batch, refused on 2025-11-25) or an object, both -32600 with id null
  fc.tuple(fc.integer({ min: 100, max: 3000 }), fc.boolean()).map(([depth, array]) => () => ({
    text: array ? "[".repeat(depth) + "]".repeat(depth) : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`,
    expect: { kind: "error" as const, id: null, code: -32600 }
  })),
  // wrong params for a known method
  fc.constantFrom(...badParams).map(([method, params]) => (n: number) => ({
    text: request(n, method, params),
    expect: { kind: "error" as const, id: n, code: -32602 }
  })),
  // unknown methods, some with huge names
  fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constant("m".repeat(100_000))).map((m) => (n: number) => ({
    text: request(`id-${n}`, `x-${m}`),
    expect: { kind: "error" as const, id: `id-${n}`, code: -32601 }
  })),
  // a bad envelope with a good id: -32600 with that id
  fc.constantFrom<Record<string, unknown>>({ jsonrpc: "1.0" }, { params: 5 }, { params: [] }, { params: "x" }).map(
    (bad) => (n: number) => ({
      text: JSON.stringify({ jsonrpc: "2.0", id: n, method: "ping", ...bad }),
      expect: { kind: "error" as const, id: n, code: -32600 }
    })
  ),
  // an id that is not a JSON-RPC id: -32600 with id null
  fc.constantFrom<unknown>(1.5, true, null, {}, []).map((id) => () => ({
    text: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
    expect: { kind: "error" as const, id: null, code: -32600 }
  })),
  // responses to requests never sent, and unknown notifications: no answer
  fc.string({ maxLength: 20 }).map((s) => (n: number) => ({
    text: JSON.stringify({ jsonrpc: "2.0", id: `unknown-${n}-${s}`, result: { s } }),
    expect: { kind: "none" as const }
  })),
  fc.string({ maxLength: 20 }).map((s) => () => ({
    text: JSON.stringify({ jsonrpc: "2.0", method: `notifications/x-${s}`, params: { s } }),
    expect: { kind: "none" as const }
  })),
  // a huge string that is fine: it is echoed back
  fc.integer({ min: 10_000, max: 200_000 }).map((size) => (n: number) => ({
    text: request(n, "tools/call", { name: "echo", arguments: { text: "x".repeat(size) } }),
    expect: { kind: "result" as const, id: n }
  })),
  // plain valid requests in between
  fc.constant((n: number) => ({ text: request(n, "ping"), expect: { kind: "result" as const, id: n } }))
)

it("10,000 generated frames: every request gets its error code and id, the server keeps serving", async () => {
  const makers = fc.sample(frame, { numRuns: FRAMES, seed: 2026 })
  const frames = makers.map((make, i) => make(i + 100))
  const child = spawn(process.execPath, [everything, "--stdio"], { stdio: ["pipe", "pipe", "ignore"] })
  const byId = new Map<string | number, { error?: { code: number }; result?: unknown }>()
  let nullErrors: Array<number> = []
  let buffer = ""
  let waiting: (() => void) | undefined
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk
    let at: number
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      const message = JSON.parse(line)
      if ("method" in message) continue
      if (message.id === null) nullErrors.push(message.error.code)
      else byId.set(message.id, message)
    }
    waiting?.()
  })
  const until = (done: () => boolean) =>
    new Promise<void>((ok, ko) => {
      const timer = setTimeout(() => ko(new Error("the server stopped answering")), 60_000)
      const check = () => {
        if (done()) {
          clearTimeout(timer)
          waiting = undefined
          ok()
        }
      }
      waiting = check
      check()
    })
  const send = (lines: ReadonlyArray<string>) => child.stdin.write(lines.map((l) => `${l}\n`).join(""))

  send([
    request(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "fuzz", version: "0" }
    }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
  ])
  await until(() => byId.has(0))

  for (let start = 0; start < frames.length; start += 500) {
    const batch = frames.slice(start, start + 500)
    nullErrors = []
    send(batch.map((f) => f.text))
    const ids = batch.flatMap((f) => (f.expect.kind === "none" || f.expect.id === null ? [] : [f.expect.id]))
    const nulls = batch.filter((f) => f.expect.kind === "error" && f.expect.id === null)
    await until(() => ids.every((id) => byId.has(id)) && nullErrors.length >= nulls.length)
    // the answers without an id, as a multiset of codes
    expect([...nullErrors].sort()).toEqual(nulls.map((f) => (f.expect as { code: number }).code).sort())
    for (const f of batch) {
      if (f.expect.kind === "error" && f.expect.id !== null) {
        expect({ frame: f.text.slice(0, 200), code: byId.get(f.expect.id)?.error?.code }).toEqual({
          frame: f.text.slice(0, 200),
          code: f.expect.code
        })
      }
      if (f.expect.kind === "result") expect(byId.get(f.expect.id)?.result).toBeDefined()
    }
  }
  // nothing answered what needs no answer (every id seen was one we asked for)
  const asked = new Set<string | number>([
    0,
    ...frames.flatMap((f) => (f.expect.kind === "none" || f.expect.id === null ? [] : [f.expect.id]))
  ])
  expect([...byId.keys()].filter((id) => !asked.has(id))).toEqual([])

  // duplicate ids in flight: the second is refused, the first still answers
  send([request("dup", "tools/call", { name: "test_tool_with_progress", arguments: {} }), request("dup", "ping")])
  await until(() => byId.get("dup")?.error !== undefined)
  expect(byId.get("dup")?.error?.code).toBe(-32600)
  await until(() => byId.get("dup")?.result !== undefined)

  // and a well-formed call after all that garbage
  send([request("last", "tools/call", { name: "echo", arguments: { text: "still here" } })])
  await until(() => byId.has("last"))
  expect(byId.get("last")?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] })
  expect(child.exitCode).toBeNull()
  child.stdin.end()
  await new Promise((ok) => child.on("exit", ok))
  expect(child.exitCode).toBe(0)
}, 180_000)
