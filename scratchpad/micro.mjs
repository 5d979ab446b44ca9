import { Codec, JsonRpc } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
const N = 5000
const time = (label, f) => { for (let i = 0; i < 500; i++) f(); const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) f(); console.log(label, (Number(process.hrtime.bigint() - t) / 1e3 / N).toFixed(1), "µs") }
const req = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } }
const result = { content: [{ type: "text", text: "hello" }] }
time("decodeMessage", () => JsonRpc.decodeMessage(req))
time("decodeParams 2025-11-25", () => Codec.decodeParams("tools/call", "2025-11-25", req.params))
time("encodeParams 2025-11-25", () => Codec.encodeParams("tools/call", "2025-11-25", req.params))
time("encodeResult 2025-11-25", () => Codec.encodeResult("tools/call", "2025-11-25", result))
time("decodeResult 2025-11-25", () => Codec.decodeResult("tools/call", "2025-11-25", result))
const In = Schema.decodeUnknown(Schema.Struct({ text: Schema.String }))
time("tool input decode (effect)", () => Effect.runSync(In({ text: "x" })))
time("runPromise noop", () => Effect.runSync(Effect.void))
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" } }
time("decodeParams 2026", () => Codec.decodeParams("tools/call", "2026-07-28", { ...req.params, _meta: meta }))
