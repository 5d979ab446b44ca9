/**
 * Fuzz over stdio, the envelopes: 10,000 generated frames (fast-check, fixed seed; `EFFECT_MCP_FUZZ_FRAMES` sets
 * how many) into a real server child
 * (`examples/everything/dist/main.js --stdio`): random text, truncated and deeply nested whole frames, bad envelopes
 * and ids, a few wrong params, unknown methods, huge strings, responses with unknown ids, unknown notifications.
 * Every request gets its exact error code with its id, nothing else gets an answer, the process keeps serving and
 * exits 0 at EOF. (Hostile values inside params, from the schemas: fuzz.test.ts.)
 */
import { expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { fileURLToPath } from "node:url"
import { startStdioPeer } from "./fuzzPeer.js"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const FRAMES = Number(process.env.EFFECT_MCP_FUZZ_FRAMES ?? 10_000)
const HOW_MANY = FRAMES.toLocaleString("en")

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

it(`${HOW_MANY} generated frames: every request gets its error code and id, the server keeps serving`, async () => {
  const makers = fc.sample(frame, { numRuns: FRAMES, seed: 2026 })
  const frames = makers.map((make, i) => make(i + 100))
  const peer = startStdioPeer([everything, "--stdio"])
  const answered = (id: string | number) => peer.byId.has(id)
  peer.send([
    request(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "fuzz", version: "0" }
    }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
  ])
  await peer.until(() => answered(0), () => "initialize")

  for (let start = 0; start < frames.length; start += 500) {
    const batch = frames.slice(start, start + 500)
    const nullsBefore = peer.nulls.length
    peer.send(batch.map((f) => f.text))
    const ids = batch.flatMap((f) => (f.expect.kind === "none" || f.expect.id === null ? [] : [f.expect.id]))
    const nulls = batch.filter((f) => f.expect.kind === "error" && f.expect.id === null)
    await peer.until(
      () => ids.every(answered) && peer.nulls.length - nullsBefore >= nulls.length,
      () => `answers to frames ${start} to ${start + 500}`
    )
    // the answers without an id, as a multiset of codes
    const codes = peer.nulls.slice(nullsBefore).map((m) => (m.error as { code: number }).code)
    expect(codes.sort()).toEqual(nulls.map((f) => (f.expect as { code: number }).code).sort())
    for (const f of batch) {
      const got = f.expect.kind === "none" || f.expect.id === null ? undefined : peer.byId.get(f.expect.id)?.[0]
      if (f.expect.kind === "error" && f.expect.id !== null) {
        expect({ frame: f.text.slice(0, 200), code: (got?.error as { code?: number } | undefined)?.code }).toEqual({
          frame: f.text.slice(0, 200),
          code: f.expect.code
        })
      }
      if (f.expect.kind === "result") expect(got?.result).toBeDefined()
    }
  }
  // nothing answered what needs no answer (every id seen was one we asked for, once)
  const asked = new Set<unknown>([
    0,
    ...frames.flatMap((f) => (f.expect.kind === "none" || f.expect.id === null ? [] : [f.expect.id]))
  ])
  expect([...peer.byId.keys()].filter((id) => !asked.has(id))).toEqual([])
  expect([...peer.byId.values()].filter((answers) => answers.length !== 1)).toEqual([])

  // duplicate ids in flight: the second is refused, the first still answers
  peer.send([request("dup", "tools/call", { name: "test_tool_with_progress", arguments: {} }), request("dup", "ping")])
  await peer.until(() => (peer.byId.get("dup") ?? []).length === 2, () => "both answers to id dup")
  const [refused, answer] = peer.byId.get("dup")!
  expect(refused?.error).toMatchObject({ code: -32600 })
  expect(answer?.result).toBeDefined()

  // and a well-formed call after all that garbage
  peer.send([request("last", "tools/call", { name: "echo", arguments: { text: "still here" } })])
  await peer.until(() => answered("last"), () => "the last call")
  expect(peer.byId.get("last")?.[0]?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] })
  expect(await peer.close()).toBe(0)
}, 180_000)
