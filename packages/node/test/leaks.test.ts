/**
 * Leaks over stdio, measured in both processes: a real server child (`fixtures/leakServer.mjs`, run with
 * --expose-gc) and this client, on 2025-11-25 and on 2026-07-28. After a warm-up, CALLS calls cancelled
 * mid-flight, CALLS timed out and CALLS ordinary ones; then, in the server (which reports its own numbers) and in
 * the client, the heap and the external memory after a full collection are back within their slack of the
 * baseline, the active handles and requests and the live fibers are exactly back, and nothing is in flight.
 * The fixture's LEAK_OFFHEAP=1 (256 bytes kept per call) and LEAK_HANDLES=1 (a timer per call) make it fail.
 */
import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Supervisor from "effect/Supervisor"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { clientMemory, expectNoLeak, fixture, idle, rounds, serverMemory } from "./leakProbe.js"

const built = fileURLToPath(new URL("../dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the leak fixture imports ${built}`)

const CALLS = Number(process.env.EFFECT_MCP_LEAK_WIRE_CALLS ?? 3_000)
const ROUND = 250
// Short enough that the handlers still run when their calls time out, long enough that each request reaches them.
const TIMEOUT = "20 millis"

describe.each(["2025-11-25", "2026-07-28"] as const)("leaks over stdio (%s)", (revision) => {
  it.scopedLive(
    `${CALLS} calls cancelled mid-flight, ${CALLS} timed out and ${CALLS} answered leave nothing in either process`,
    () =>
      Effect.gen(function*() {
        const fibers = yield* Supervisor.track
        yield* Effect.gen(function*() {
          const layer = McpClient.layer({ name: "leaks", version: "1", revision }).pipe(
            Layer.provide(StdioClientTransport.layer({ command: process.execPath, args: ["--expose-gc", fixture] }))
          )
          const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
          yield* rounds(client, ROUND, TIMEOUT)
          const server = yield* serverMemory(client)
          const local = yield* clientMemory(fibers)
          for (let done = 0; done < CALLS; done += ROUND) yield* rounds(client, Math.min(ROUND, CALLS - done), TIMEOUT)
          yield* idle(client)
          const serverAfter = yield* serverMemory(client)
          const localAfter = yield* clientMemory(fibers)
          expect(serverAfter.started - server.started).toBeGreaterThanOrEqual(CALLS)
          expect(serverAfter.interrupted).toBe(serverAfter.started)
          expect(serverAfter.stats).toEqual(server.stats)
          expect(client.stats()).toEqual({ pending: 0, inFlight: 0 })
          expectNoLeak("server", server, serverAfter)
          expectNoLeak("client", local, localAfter)
        }).pipe(Effect.supervised(fibers))
      }),
    120_000
  )
})
