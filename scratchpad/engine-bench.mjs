// Bare engine round trip over the in-memory transport (no MCP codec); imports the built engine by path.
import * as Engine from "../packages/core/dist/internal/engine.js"
import * as InMemoryTransport from "@effect-mcp/core/InMemoryTransport"
import * as Transport from "@effect-mcp/core/Transport"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
const scope = Effect.runSync(Scope.make())
const pair = await Effect.runPromise(Scope.extend(InMemoryTransport.makePair, scope))
const handlers = { onRequest: () => Effect.succeed({ ok: true }), onNotification: () => Effect.void, acceptsBatch: () => false }
await Effect.runPromise(Scope.extend(Engine.make(handlers), scope).pipe(Effect.provideService(Transport.Transport, pair.server)))
const client = await Effect.runPromise(Scope.extend(Engine.make(handlers), scope).pipe(Effect.provideService(Transport.Transport, pair.client)))
for (const label of ["warm", "run"]) {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < 5000; i++) await Effect.runPromise(client.request("x", {}))
  process.stderr.write(`${label} ${(Number(process.hrtime.bigint() - t0) / 1e3 / 5000).toFixed(1)} µs/call\n`)
}
process.exit(0)
