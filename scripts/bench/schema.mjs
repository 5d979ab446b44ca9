// Workload: decoding and encoding a tools/call request and its result, effect-mcp's schemas against the zod
// schemas of @modelcontextprotocol/sdk 1.32, interleaved in one run. Reports µs per operation (medians of
// BENCH_RUNS runs of BENCH_SCHEMA_ITERATIONS operations, after a warm-up) and the ratio theirs / ours (above 1
// means ours is faster). zod has no encoder: the SDK validates outgoing messages with `parse`, so that is what
// "theirs" does in both directions.
import { Codec, JsonRpc } from "@effect-mcp/schema"
import { CallToolRequestSchema, CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"

export const name = "schema: tools/call"

const ITERATIONS = Number(process.env.BENCH_SCHEMA_ITERATIONS ?? 20000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const REVISION = "2025-11-25"

const request = {
  jsonrpc: "2.0",
  id: 42,
  method: "tools/call",
  params: {
    name: "get_weather",
    arguments: { location: "New York", units: "metric", days: 3 },
    _meta: { progressToken: 7, "com.example/trace": "abc" }
  }
}
const result = {
  content: [
    { type: "text", text: "Current weather in New York: 22°C, partly cloudy" },
    { type: "resource_link", uri: "https://weather.example/ny", name: "forecast", mimeType: "text/html" }
  ],
  structuredContent: { temperature: 22, conditions: "Partly cloudy", humidity: 65 },
  isError: false
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** µs per call of `f`, which returns whether it succeeded (counted, so the work cannot be optimised away). */
const time = (f) => {
  let ok = 0
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < ITERATIONS; i++) if (f()) ok++
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / ITERATIONS
  if (ok !== ITERATIONS) throw new Error(`bench: ${ITERATIONS - ok} operations failed`)
  return us
}

const zod = (schema, value) => () => schema.safeParse(value).success

const cases = [
  {
    label: "decode request (envelope + params)",
    ours: () => {
      const m = JsonRpc.decodeMessage(request)
      return m._tag === "Right" && Codec.decodeParams("tools/call", REVISION, m.right.params)._tag === "Right"
    },
    theirs: () => JSONRPCMessageSchema.safeParse(request).success && CallToolRequestSchema.safeParse(request).success
  },
  {
    label: "encode request (params + envelope)",
    ours: () => {
      const params = Codec.encodeParams("tools/call", REVISION, request.params)
      return params._tag === "Right" && JsonRpc.request(42, "tools/call", params.right) !== undefined
    },
    theirs: zod(CallToolRequestSchema, request)
  },
  {
    label: "decode result",
    ours: () => Codec.decodeResult("tools/call", REVISION, result)._tag === "Right",
    theirs: zod(CallToolResultSchema, result)
  },
  {
    label: "encode result",
    ours: () => Codec.encodeResult("tools/call", REVISION, result)._tag === "Right",
    theirs: zod(CallToolResultSchema, result)
  }
]

/** Runs the workload and returns its rows. */
export const run = async () =>
  cases.map((c) => {
    const ours = []
    const theirs = []
    time(c.ours)
    time(c.theirs)
    for (let i = 0; i < RUNS; i++) {
      ours.push(time(c.ours))
      theirs.push(time(c.theirs))
    }
    const o = median(ours)
    const t = median(theirs)
    return {
      workload: `${name}, ${c.label}`,
      ours: `${o.toFixed(2)} µs`,
      theirs: `${t.toFixed(2)} µs (zod)`,
      ratio: `${(t / o).toFixed(2)}×`
    }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run()) process.stdout.write(`${JSON.stringify(row)}\n`)
}
