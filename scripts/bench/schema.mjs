// Workload: decoding and encoding a tools/call request and its result, effect-mcp's schemas against the zod
// schemas of @modelcontextprotocol/sdk 1.32, interleaved in one run. Reports µs per operation (medians) and
// the ratio (theirs / ours: above 1 means ours is faster).
import { Codec, JsonRpc } from "@effect-mcp/schema"
import { CallToolRequestSchema, CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"

export const name = "schema: tools/call"

const ITERATIONS = Number(process.env.BENCH_SCHEMA_ITERATIONS ?? 20000)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)

const request = {
  jsonrpc: "2.0",
  id: 42,
  method: "tools/call",
  params: { name: "get_weather", arguments: { location: "New York", units: "metric" }, _meta: { progressToken: 7 } }
}
const result = {
  content: [{ type: "text", text: "Current weather in New York: 22°C, partly cloudy" }],
  structuredContent: { temperature: 22, conditions: "Partly cloudy", humidity: 65 },
  isError: false
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const time = (f) => {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < ITERATIONS; i++) f()
  return Number(process.hrtime.bigint() - t0) / 1e3 / ITERATIONS
}

const cases = [
  {
    label: "decode request (envelope + params)",
    ours: () => {
      const m = JsonRpc.decodeMessage(request)
      if (m._tag !== "Right") throw new Error("bench: decode failed")
      Codec.decodeParams("tools/call", "2025-11-25", m.right.params)
    },
    theirs: () => {
      JSONRPCMessageSchema.parse(request)
      CallToolRequestSchema.parse(request)
    }
  },
  {
    label: "encode result",
    ours: () => Codec.encodeResult("tools/call", "2025-11-25", result),
    theirs: () => CallToolResultSchema.parse(result)
  },
  {
    label: "decode result",
    ours: () => Codec.decodeResult("tools/call", "2025-11-25", result),
    theirs: () => CallToolResultSchema.parse(result)
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
