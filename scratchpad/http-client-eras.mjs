// Our HTTP client's CPU per call (McpNodeHttpClient, driven as the transports benchmark drives ours) under a
// 2025-11-25 session and under 2026-07-28 stateless, both in this one process against one examples/everything --http
// child (whose CPU is not counted), in alternating blocks: what a stateless call costs the client beyond a session
// call. BLOCK calls per block (default 500), BLOCKS per era (default 12) after WARM calls each (default 4000).
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"

const BLOCK = Number(process.env.BLOCK ?? 500)
const BLOCKS = Number(process.env.BLOCKS ?? 12)
const WARM = Number(process.env.WARM ?? 4000)
const child = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "ignore"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const scope = Effect.runSync(Scope.make())
const calls = {}
for (const revision of ["2025-11-25", "2026-07-28"]) {
  const context = await Effect.runPromise(Layer.buildWithScope(
    Layer.scoped(McpClient.McpClient, McpClient.make({ name: "c", version: "1", revision })).pipe(Layer.provide(McpNodeHttpClient.layer({ url }))),
    scope
  ))
  const client = Context.get(context, McpClient.McpClient)
  calls[revision] = (n) => {
    let next = 0
    const loop = Effect.suspend(() => next++ >= n ? Effect.void : Effect.flatMap(client.callTool("echo", { text: "hello" }), () => loop))
    return Effect.runPromise(loop)
  }
  await calls[revision](WARM)
}
const results = { "2025-11-25": [], "2026-07-28": [] }
for (let b = 0; b < BLOCKS; b++) {
  for (const rev of b % 2 === 0 ? ["2025-11-25", "2026-07-28"] : ["2026-07-28", "2025-11-25"]) {
    const cpu0 = process.cpuUsage()
    await calls[rev](BLOCK)
    const cpu = process.cpuUsage(cpu0)
    results[rev].push((cpu.user + cpu.system) / BLOCK)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ratios = results["2026-07-28"].map((s, i) => s / results["2025-11-25"][i])
console.log(`client CPU µs/call: session ${median(results["2025-11-25"]).toFixed(1)}, stateless ${median(results["2026-07-28"]).toFixed(1)}, stateless/session median of blocks ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`)
child.kill("SIGKILL")
process.exit(0)
