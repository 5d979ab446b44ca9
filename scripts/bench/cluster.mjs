// Workload: scale-out on Redis (docs/scale-out.md). Calls per second of 2026-07-28 `tools/call` (our client, 16 in
// flight) through the round-robin proxy in front of 1, 2 and 3 everything processes on one Redis (on two cores the
// gain is bounded: the proxy, the client and Redis share them); then, straight at one process, the added cost per call
// of the Redis-backed services against the in-memory ones: a plain call (which touches no shared state) and an
// `input_required` round trip (whose requestState is signed and verified with the key ring, read from Redis).
// Medians of BENCH_RUNS runs of BENCH_CLUSTER_CALLS calls, after BENCH_CLUSTER_WARMUP calls.
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

export const name = "cluster"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const Cluster = await import(pathToFileURL(join(root, "examples", "cluster", "dist", "Cluster.js")).href)
const RedisServer = await import(pathToFileURL(join(root, "examples", "redis-server", "dist", "RedisServer.js")).href)

const CALLS = Number(process.env.BENCH_CLUSTER_CALLS ?? 2000)
const WARMUP = Number(process.env.BENCH_CLUSTER_WARMUP ?? 1000)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const IN_FLIGHT = 16

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** A connected 2026-07-28 client of `url` (it answers elicitations), in the scope. */
const clientOf = (url) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "bench-cluster", version: "0" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url })),
        Layer.provide(ClientHandlers.elicitation({
          elicit: () => Effect.succeed({ action: "accept", content: { username: "ada", email: "ada@example.com" } })
        }))
      )
    ),
    Context.get(McpClient.McpClient)
  )

/** µs per call of `call`, `calls` of them with IN_FLIGHT in flight. */
const timed = (call, calls) =>
  Effect.gen(function*() {
    const t0 = process.hrtime.bigint()
    yield* Effect.forEach(Array.from({ length: calls }), call, { concurrency: IN_FLIGHT, discard: true })
    return Number(process.hrtime.bigint() - t0) / 1e3 / calls
  })

/** The median µs per call over RUNS runs, after the warm-up. */
const measure = (call) =>
  Effect.gen(function*() {
    yield* timed(call, WARMUP)
    const runs = []
    for (let i = 0; i < RUNS; i++) runs.push(yield* timed(call, CALLS))
    return median(runs)
  })

const echo = (client) => () => client.callTool("echo", { text: "hi" })
const elicit = (client) => () => client.callTool("test_elicitation", { message: "Who?" })

const throughProxy = (size) =>
  Effect.scoped(Effect.gen(function*() {
    const cluster = yield* Cluster.startCluster(size)
    const client = yield* clientOf(cluster.url)
    const us = yield* measure(echo(client))
    return { workload: `${name}: tools/call through the proxy, ${size} process${size > 1 ? "es" : ""}`, ours: `${Math.round(1e6 / us)} calls/s` }
  }))

/** The µs per call of `call` straight at one process, in memory and on Redis. */
const sharedCost = (label, call) =>
  Effect.scoped(Effect.gen(function*() {
    const redis = yield* RedisServer.startRedis
    const memory = yield* Cluster.member(undefined)
    const onRedis = yield* Cluster.member(redis.url)
    const inMemory = yield* measure(call(yield* clientOf(`${memory.origin}/mcp`)))
    const shared = yield* measure(call(yield* clientOf(`${onRedis.origin}/mcp`)))
    return {
      workload: `${name}: ${label}, one process, Redis vs in memory`,
      ours: `${shared.toFixed(1)} µs/call on Redis`,
      theirs: `${inMemory.toFixed(1)} µs/call in memory`,
      ratio: `${shared >= inMemory ? "+" : "−"}${Math.abs(shared - inMemory).toFixed(1)} µs`
    }
  }))

export const run = () =>
  Effect.runPromise(Effect.gen(function*() {
    const rows = []
    for (const size of [1, 2, 3]) rows.push(yield* throughProxy(size))
    rows.push(yield* sharedCost("tools/call echo", echo))
    rows.push(yield* sharedCost("input_required round trip", elicit))
    return rows
  }))

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run()) process.stdout.write(`${JSON.stringify(row)}\n`)
}
