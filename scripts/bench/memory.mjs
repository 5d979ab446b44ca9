// Workload: in-memory tools/call round trips, effect-mcp against @modelcontextprotocol/sdk 1.32's
// InMemoryTransport, interleaved in one run. Reports calls per second and CPU µs per call, sequential
// and 64 in flight, as medians of several runs, with the same-run ratio (ours / theirs for calls/s).
// The heap rows (a live pair's heap, growth per call) also measure SDK v2 (@modelcontextprotocol/server and client
// 2.4, column "sdk 2.4"), so that issue 32's goals are ratios of one run. The Layer floor's row measures a build shaped
// like the McpTest.layer pair's with no MCP in it (what Effect 3's Layer bookkeeping alone keeps; see `layerFloor`).
import { InMemoryTransport as OurInMemory, McpClient, McpServer, McpTest, PromiseClient, Tool, Transport } from "@effect-mcp/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer as SdkServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Client as Client2, InMemoryTransport as InMemory2 } from "@modelcontextprotocol/client"
import { McpServer as Server2 } from "@modelcontextprotocol/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { drive } from "../bench-drive.mjs"
import { z } from "zod"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc")
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1000)
const GROWTH_CALLS = Number(process.env.BENCH_GROWTH_CALLS ?? 200_000)
const GROWTH_WARMUP = Number(process.env.BENCH_GROWTH_WARMUP ?? 100_000)
const GROWTH_CHECKPOINTS = 10

/** The heap after full collections. */
const settledHeap = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

export const name = "in-memory tools/call"

const CALLS = Number(process.env.BENCH_CALLS ?? 20000)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const IN_FLIGHT = 64

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Runs CALLS calls with `concurrency` workers, driven as `drive` says; returns calls/s and CPU µs per call. */
const measure = async (peer, concurrency, { promise = false } = {}) => {
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  await drive(peer, concurrency, CALLS, { promise })
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage(cpu0)
  return { rps: CALLS / seconds, cpuUs: (cpu.user + cpu.system) / CALLS }
}

// Each side's server is defined once, as a program defines it (the README's module-level `Echo`), and built per pair:
// a pair's heap is what each connected client and server instance costs, not the definition's Schema and compiled
// codecs. Made per pair, they add 7.5 KB through McpTest.layer, 5.5 KB from values and 3.6 KB to SDK v2's pair
// (docs/benchmarks.md, "Heap per pair, session 23").
const echoDefinition = {
  name: "echo",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
}
const oursServer = McpServer.tool(echoDefinition).pipe(
  Layer.provideMerge(McpServer.layer({ name: "bench", version: "1" }))
)
const echoShape = { text: z.string() }
const echoObject = z.object(echoShape)
const echoHandler = async ({ text }) => ({ content: [{ type: "text", text }] })

/** Our pair through `McpTest.layer`; `promised`: the client driven through a `PromiseClient` made on it. */
const ours = async (revision, promised = false) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(
      McpTest.layer(oursServer, revision === undefined ? undefined : { name: "bench-client", version: "1", revision }),
      scope
    ))
  const client = Context.get(context, McpClient.McpClient)
  if (promised) {
    const viaPromises = await Effect.runPromise(Scope.extend(PromiseClient.make(client), scope))
    return {
      call: () => viaPromises.callTool("echo", { text: "hello" }),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
  const callEffect = () => client.callTool("echo", { text: "hello" })
  return {
    call: () => Effect.runPromise(callEffect()),
    callEffect,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

// The Layer floor: what Effect 3's Layer bookkeeping keeps for a build shaped exactly like `McpTest.layer(Server)` with
// the README's server, with no MCP in it. The README composes a tool with the registry as
// `Greet.pipe(Layer.provideMerge(McpServer.layer(…)))`, a `Layer.scopedDiscard` (the tool, which needs the registry)
// over a `Layer.scoped` (the registry), and `McpTest.layer` is a `Layer.scopedContext` whose effect builds that server
// with `Layer.build` (a memo map of its own) and adds the client to its context. The floor has the same constructors
// and compositions, each service a small plain object, and nothing else: its tool node only reads the registry (no
// registration, no finalizer), no connection, no in-memory pair. So it keeps what any Layer-built pair of this shape
// keeps in Effect 3 before any MCP: two memo maps (the enclosing build's and the server's) and a memo entry per node
// of the server (`provideMerge` is `ProvideMerge(self, provide(that, self))`, and `provide` a `Suspend` over
// `Provide(ProvideMerge(context(), self), that)`: five entries for the registry's side, and the tool's), each with its
// Refs, its Deferred and its scope (docs/benchmarks.md, "Heap per pair, session 22"). The McpTest.layer pair's heap
// beyond this floor is ours: the registry, the session, the client and the in-memory pair.
const FloorRegistry = Context.GenericTag("bench/LayerFloor/Registry")
const FloorClient = Context.GenericTag("bench/LayerFloor/Client")
const floorServer = Layer.scopedDiscard(Effect.flatMap(FloorRegistry, () => Effect.void)).pipe(
  Layer.provideMerge(Layer.scoped(FloorRegistry, Effect.sync(() => ({ name: "bench", version: "1" }))))
)
/** The floor's `McpTest.layer`: builds `server` in a memo map of its own and adds a client to its context. */
const floorPairLayer = (server) =>
  Layer.scopedContext(Effect.gen(function*() {
    const context = yield* Layer.build(server)
    return Context.add(context, FloorClient, { name: "bench-client", version: "1" })
  }))

/** A build of the Layer floor, made per pair as `ours()` makes `McpTest.layer`; it has nothing to call. */
const layerFloor = async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(floorPairLayer(floorServer), scope))
  const client = Context.get(context, FloorClient)
  return {
    call: async () => client,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** A peer over a client made in a Scope of its own by `build` (closing the peer closes that Scope). */
const scopedPeer = async (build) => {
  const scope = Effect.runSync(Scope.make())
  const client = await Effect.runPromise(Scope.extend(build, scope))
  return {
    call: () => Effect.runPromise(client.callTool("echo", { text: "hello" })),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** A session of `registry` (`McpServer.connect`) and a client, over an in-memory pair, in the current scope. */
const connectClient = (registry) =>
  Effect.gen(function*() {
    const pair = yield* OurInMemory.makePair
    yield* McpServer.connect.pipe(
      Effect.provideService(McpServer.McpServer, registry),
      Effect.provideService(Transport.Transport, pair.server)
    )
    return yield* McpClient.make({ name: "bench-client", version: "1" }).pipe(
      Effect.provideService(Transport.Transport, pair.client)
    )
  })

/**
 * One connection of a server that is already running: an in-memory pair, a session of the shared registry
 * (`McpServer.connect`) and a client. This is what a server with many clients (or a host's many clients of servers)
 * pays per connection; an SDK McpServer serves one transport at a time, so its cost per connection is its pair's.
 */
const oursConnection = (registry) => () => scopedPeer(connectClient(registry))

/**
 * A whole pair built from values, as the SDK's pair is: a registry of its own (`McpServer.make`) with the tool added,
 * a session (`McpServer.connect`) and a client, all in one Scope, with no Layer. `ours()` builds the same pair through
 * Layers (`McpTest.layer`), which is how tests build one and costs Effect's Layer bookkeeping on top.
 */
const oursValues = () =>
  scopedPeer(Effect.gen(function*() {
    const registry = yield* McpServer.make({ name: "bench", version: "1" })
    yield* registry.addTool(Tool.make(echoDefinition, Context.empty()))
    return yield* connectClient(registry)
  }))

const theirs = async () => {
  const server = new SdkServer({ name: "bench", version: "1" })
  server.registerTool("echo", { inputSchema: echoShape }, echoHandler)
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client({ name: "bench-client", version: "1" })
  await client.connect(clientTransport)
  return {
    call: () => client.callTool({ name: "echo", arguments: { text: "hello" } }),
    close: async () => {
      await client.close()
      await server.close()
    }
  }
}

/** SDK v2 (2.4)'s pair, as its README builds one: an McpServer with the tool, linked in memory to a Client. */
const sdk2 = async () => {
  const server = new Server2({ name: "bench", version: "1" })
  server.registerTool("echo", { inputSchema: echoObject }, echoHandler)
  const [clientTransport, serverTransport] = InMemory2.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client2({ name: "bench-client", version: "1" })
  await client.connect(clientTransport)
  return {
    call: () => client.callTool({ name: "echo", arguments: { text: "hello" } }),
    close: async () => {
      await client.close()
      await server.close()
    }
  }
}

/**
 * Heap bytes per live client+server pair, with PAIRS pairs connected at once (and idle: their sweeps are over). One
 * pair is made, called and closed first, so that what the first pair of a kind makes once (compiled code, a codec's
 * caches) is not spread over the PAIRS.
 */
const heapPerPair = async (make) => {
  const first = await make()
  await first.call()
  await first.close()
  const before = settledHeap()
  const peers = []
  for (let i = 0; i < PAIRS; i++) peers.push(await make())
  for (const p of peers) await p.call() // every pair has served a call
  await new Promise((resolve) => setTimeout(resolve, 200)) // a connection's timeout sweeper stops 50 ms after its call
  const after = settledHeap()
  for (const p of peers) await p.close()
  return (after - before) / PAIRS
}

/**
 * Steady heap growth in bytes per call on one pair: after GROWTH_WARMUP calls (SDK v2 drops about 0.7 MB it held
 * after a shorter warm-up, which read as -3 to -4 B/call), the settled heap (full collections) at GROWTH_CHECKPOINTS + 1
 * points over GROWTH_CALLS sequential calls, and the least-squares slope through them: one checkpoint's noise (V8
 * flushing and recompiling bytecode moves the settled heap by up to 0.8 MB between two of them) weighs little, and a
 * leak shows as a slope.
 */
const growthPerCall = async (make) => {
  const peer = await make()
  for (let i = 0; i < GROWTH_WARMUP; i++) await peer.call()
  const step = Math.ceil(GROWTH_CALLS / GROWTH_CHECKPOINTS)
  const points = [[0, settledHeap()]]
  for (let k = 1; k <= GROWTH_CHECKPOINTS; k++) {
    for (let i = 0; i < step; i++) await peer.call()
    points.push([k * step, settledHeap()])
  }
  await peer.close()
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length
  return points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / points.reduce((a, [x]) => a + (x - mx) ** 2, 0)
}

/** Runs the workload and returns its rows. */
export const run = async () => {
  const rows = []
  // The throughput rows first: the heap rows' 1,000 live pairs make V8 pretenure objects from the allocation sites a
  // call also uses, which slows every later call in this process (see scripts/bench.mjs).
  // Ours as a client connects by default (2026-07-28, stateless), and pinned to 2025-11-25, the SDK's revision.
  const variants = [
    ["", () => ours(), {}],
    [" (ours pinned to 2025-11-25)", () => ours("2025-11-25"), {}],
    [", ours driven by a runPromise per call", () => ours(), { promise: true }],
    [", ours driven by PromiseClient", () => ours(undefined, true), { promise: true }]
  ]
  for (const [variant, makeOurs, driver] of variants) {
    for (const [label, concurrency] of [["sequential", 1], [`${IN_FLIGHT} in flight`, IN_FLIGHT]]) {
      const results = { ours: [], theirs: [] }
      for (let i = 0; i < RUNS + 1; i++) {
        for (const [who, make] of [["ours", makeOurs], ["theirs", theirs]]) {
          const peer = await make()
          const m = await measure(peer, concurrency, driver)
          await peer.close()
          if (i > 0) results[who].push(m) // the first round warms up
        }
      }
      const o = { rps: median(results.ours.map((m) => m.rps)), cpuUs: median(results.ours.map((m) => m.cpuUs)) }
      const t = { rps: median(results.theirs.map((m) => m.rps)), cpuUs: median(results.theirs.map((m) => m.cpuUs)) }
      rows.push({
        workload: `${name}${variant}, ${label}`,
        ours: `${o.rps.toFixed(0)} calls/s, ${o.cpuUs.toFixed(1)} CPU µs/call`,
        theirs: `${t.rps.toFixed(0)} calls/s, ${t.cpuUs.toFixed(1)} CPU µs/call`,
        ratio: `${(o.rps / t.rps).toFixed(2)}× throughput, ${(t.cpuUs / o.cpuUs).toFixed(2)}× less CPU`
      })
    }
  }
  const heapRows = []
  const pair = { ours: [], theirs: [], sdk2: [] }
  const connection = []
  const values = []
  const floor = []
  const growth = { ours: [], theirs: [], sdk2: [] }
  const registryScope = Effect.runSync(Scope.make())
  const registry = Context.get(
    await Effect.runPromise(Layer.buildWithScope(oursServer, registryScope)),
    McpServer.McpServer
  )
  for (let i = 0; i < Math.max(1, Math.ceil(RUNS / 2)); i++) {
    for (const [who, make] of [["ours", () => ours()], ["theirs", theirs], ["sdk2", sdk2]]) {
      pair[who].push(await heapPerPair(make))
      growth[who].push(await growthPerCall(make))
    }
    connection.push(await heapPerPair(oursConnection(registry)))
    values.push(await heapPerPair(oursValues))
    floor.push(await heapPerPair(layerFloor))
  }
  await Effect.runPromise(Scope.close(registryScope, Exit.void))
  const kb = (b) => `${(b / 1024).toFixed(1)} KB`
  const t = median(pair.theirs)
  const t2 = median(pair.sdk2)
  const heapRow = (workload, o) => ({
    workload,
    ours: kb(o),
    theirs: kb(t),
    "sdk 2.4": kb(t2),
    ratio: `${(o / t).toFixed(2)}× sdk 1.32's heap, ${(o / t2).toFixed(2)}× sdk 2.4's`
  })
  heapRows.push(
    heapRow(
      `in-memory heap per live client+server pair (${PAIRS} pairs), ours built with Layers (McpTest.layer)`,
      median(pair.ours)
    )
  )
  const f = median(floor)
  const floorRow = heapRow(
    `in-memory heap per live Layer build shaped like McpTest.layer(Server), no MCP in it (${PAIRS}): ` +
      "Effect 3's Layer floor",
    f
  )
  floorRow.ratio += `; the McpTest.layer pair is ${kb(median(pair.ours) - f)} above it${
    f > t2 ? "; Effect's Layer bookkeeping alone exceeds sdk 2.4's whole pair" : ""
  }`
  heapRows.push(floorRow)
  heapRows.push(
    heapRow(
      `in-memory heap per live client+server pair (${PAIRS} pairs), ours built from values (make, connect)`,
      median(values)
    )
  )
  heapRows.push(
    heapRow(
      `in-memory heap per live connection of one running server, client + session (${PAIRS}; the SDKs: their pair)`,
      median(connection)
    )
  )
  const perCall = (xs) => `${median(xs).toFixed(2)} B/call`
  heapRows.push({
    workload: `in-memory steady heap growth: slope over ${GROWTH_CALLS} calls after ${GROWTH_WARMUP} (median of ${
      growth.ours.length
    } runs)`,
    ours: perCall(growth.ours),
    theirs: perCall(growth.theirs),
    "sdk 2.4": perCall(growth.sdk2),
    ratio: `goal: at most 1 B/call (runs: ours ${growth.ours.map((g) => g.toFixed(2)).join(", ")})`
  })
  return [...heapRows, ...rows]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run()) process.stdout.write(`${JSON.stringify(row)}\n`)
}
