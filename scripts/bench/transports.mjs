// Workload: an echo tools/call over real transports, effect-mcp against @modelcontextprotocol/sdk 1.32 and the
// v2 SDK (@modelcontextprotocol/server + client 2.4), each side its own SDK, interleaved in one run. Servers are
// real child processes: examples/everything for us, the interop fixtures for the SDKs. Over stdio and Streamable
// HTTP (2025-11-25 sessions, and 2026-07-28 stateless where the SDK speaks it), sequential and 64 in flight:
// calls/s, p50/p99 latency, CPU µs per call in the client (this process) and in the server (the child, from
// /proc); then connect over HTTP, and a 1 MB text echoed over stdio (spawn + initialize is startup.mjs's). Each client is
// driven the way its users write it (scripts/bench-drive.mjs); every echo row also has a row of ours driven from Promises.
// Every HTTP row also gives its CPU per call (client + server) as a ratio to the node:http floor: a bare node:http server
// answering the same JSON-RPC echo (bench/fixtures/http-floor-server.mjs) and a node:http client with a keep-alive
// agent, at the same concurrency (issue 32's goal: within 4× of it). The floor is one measurement per concurrency that
// every HTTP row of that concurrency shares (2025-11-25 session and 2026-07-28 stateless alike): the rows of both are
// measured in the same rounds, and in each round the floor is measured after each era's rows (five times their calls,
// after the same warm-up); its median over all those samples is the floor. Until session 23 each era measured a floor
// of its own, and the floor's own noise moved one era's ratio against the other's (159 against 142 µs a call in one
// run). Only the ratios mean much on a loaded machine.
// Every stdio row likewise gives its rate and CPU per call (client + server) as multiples of the stdio floor's,
// measured in the same rounds after the stdio rows (five times their calls, after the same warm-up). The stdio floor is
// two bare Node processes with no MCP library: a child (bench/fixtures/stdio-floor-server.mjs) that reads
// newline-delimited JSON-RPC on stdin and writes each answer as a line on stdout, and a client in this process that
// writes the same tools/call line our rows' client sends and parses the answer line, settling calls by id. It is what
// any stdio round trip between two Node processes pays before an MCP library does anything: on each side a pipe read
// and write, a JSON parse and stringify. Sequentially a round trip waits on each process in turn, so an MCP pair,
// which does that and more, runs below the floor's rate; issue 32's goals for the rows driven from Promises (1.3× SDK
// 1.32's rate sequentially, 2× at 64 in flight) are shown as multiples of the floor's rate, which says how much of
// what both libraries do beyond the floor a goal leaves (docs/benchmarks.md, "Floors for issue 32's missed goals,
// session 24").
import { McpClient, PromiseClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { Agent, request as httpRequest } from "node:http"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { drive } from "../bench-drive.mjs"

export const name = "transports"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const fixtures = join(root, "examples", "interop", "test", "fixtures")
const servers = {
  ours: { script: join(root, "examples", "everything", "dist", "main.js"), stdio: ["--stdio"], http: ["--http"] },
  v1: { script: join(fixtures, "sdk1-server.mjs"), stdio: [], http: ["http"] },
  v2: { script: join(fixtures, "sdk2-server.mjs"), stdio: ["stdio"], http: ["http"] },
  floor: {
    script: join(root, "scripts", "bench", "fixtures", "http-floor-server.mjs"),
    stdioScript: join(root, "scripts", "bench", "fixtures", "stdio-floor-server.mjs"),
    http: []
  }
}
// Calls measured per connection: 20,000 over stdio, 1,000 over HTTP (about 10× slower per call). Sessions 1–11
// measured 4,000 over stdio, right after the warm-up: at 64 in flight ours was still speeding up there (4,000 calls
// read 41–49k/s, the 4,000 after a further 20,000 read 50–65k/s), while SDK 1.32 read the same in both
// (docs/benchmarks.md, "Warm connections").
const CALLS = Number(process.env.BENCH_TRANSPORT_CALLS ?? 20000)
const HTTP_CALLS = Number(process.env.BENCH_HTTP_CALLS ?? 1000)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
// Calls made on each new connection before it is measured, so that the rows show a warm server and client (the
// steady state of a long-lived connection); a fresh process's first calls are the start-up workload's
// business. BENCH_TRANSPORT_WARMUP=0 measures cold connections, as sessions 1–5 did. Both sides take about 4,000
// calls to reach their steady state over either transport (docs/benchmarks.md, "Warm connections", has the
// curve), so 5,000 calls go before each measurement; sessions 6–9 warmed stdio with 2,000 and HTTP with 1,000.
const WARMUP = Number(process.env.BENCH_TRANSPORT_WARMUP ?? 5000)
const IN_FLIGHT = 64
// Extra Node/V8 flags for every server this workload starts, whatever its implementation (bench.mjs gives the
// workload process itself the same), e.g. BENCH_NODE_FLAGS=--no-allocation-site-pretenuring.
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
const CLK_TCK = 100
const megabyte = "x".repeat(1024 * 1024)

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]

/** A child's CPU time so far, in µs (Linux /proc; 0 elsewhere). */
const childCpuUs = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
    return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1e6
  } catch {
    return 0
  }
}

/** Finds the pid of the child running `script` (the one the client spawned) by scanning /proc. */
const pidOf = (script) => {
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8")
        const parent = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1])
        if (cmd.includes(script) && parent === process.pid) return Number(entry)
      } catch {
        // gone
      }
    }
  } catch {
    // no /proc
  }
  return undefined
}

/** Starts an HTTP server child; resolves with its URL and pid. */
const listen = (who) =>
  new Promise((ok, ko) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, servers[who].script, ...servers[who].http], {
      stdio: ["ignore", "pipe", "ignore"]
    })
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("LISTENING ")) ok({ url: line.slice(10), pid: child.pid, stop: () => child.kill("SIGKILL") })
    })
    child.on("error", ko)
  })

/**
 * Our client over a transport Layer; `call(text)` echoes, through an `Effect.runPromise` per call, or, with `promised`,
 * through a `PromiseClient` made on the client (calls on its reused worker fibers).
 */
const oursClient = async (transport, revision, promised = false) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Layer.scoped(McpClient.McpClient, McpClient.make({ name: "bench", version: "1", revision })).pipe(
        Layer.provide(transport)
      ),
      scope
    )
  )
  const client = Context.get(context, McpClient.McpClient)
  if (promised) {
    const viaPromises = await Effect.runPromise(Scope.extend(PromiseClient.make(client), scope))
    return {
      call: (text) => viaPromises.callTool("echo", { text }),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
  const callEffect = (text) => client.callTool("echo", { text })
  return {
    call: (text) => Effect.runPromise(callEffect(text)),
    callEffect,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The floor's client: node:http through a keep-alive agent, a POST of the JSON-RPC echo per call, its JSON parsed. */
const floorClient = (url) => {
  const agent = new Agent({ keepAlive: true })
  const { hostname, port, pathname } = new URL(url)
  let id = 0
  const call = (text) =>
    new Promise((ok, ko) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text } } })
      const req = httpRequest({
        host: hostname,
        port,
        path: pathname,
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body)
        }
      }, (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => ok(JSON.parse(Buffer.concat(chunks).toString("utf8")).result))
        res.on("error", ko)
      })
      req.on("error", ko)
      req.end(body)
    })
  return { call, close: async () => agent.destroy() }
}

/**
 * The stdio floor's client: spawns the bare stdio floor server, writes the JSON-RPC echo as a line per call, parses
 * each answer line and settles the call waiting on its id. Resolves with the peer and the child's pid.
 */
const stdioFloorClient = (script) =>
  new Promise((ok, ko) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, script], { stdio: ["pipe", "pipe", "ignore"] })
    const waiting = new Map()
    let buffered = ""
    let id = 0
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      buffered += chunk
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const answer = JSON.parse(buffered.slice(0, end))
        buffered = buffered.slice(end + 1)
        const settle = waiting.get(answer.id)
        waiting.delete(answer.id)
        settle?.(answer.result)
      }
    })
    const exited = new Promise((resolve) => child.once("exit", resolve))
    const call = (text) =>
      new Promise((resolve) => {
        const request = {
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name: "echo", arguments: { text } }
        }
        waiting.set(request.id, resolve)
        child.stdin.write(`${JSON.stringify(request)}\n`)
      })
    const close = async () => {
      child.stdin.end()
      await exited
    }
    child.once("error", ko)
    child.once("spawn", () => ok({ call, close, serverPid: child.pid }))
  })

const sdkClient = async (client, transport) => {
  await client.connect(transport)
  return { call: (text) => client.callTool({ name: "echo", arguments: { text } }), close: () => client.close() }
}

/** Connects `who` over `how` ("stdio", "http", "stateless"); resolves with { call, close, serverPid }. */
export const connect = async (who, how) => {
  // "ours-client" is our server too, only driven through a PromiseClient.
  const server = who === "ours-client" ? "ours" : who
  const s = servers[server]
  const http = how === "stdio" ? undefined : await listen(server)
  const revision = how === "stateless" ? "2026-07-28" : "2025-11-25"
  let peer
  if (who === "floor") {
    peer = http === undefined ? await stdioFloorClient(s.stdioScript) : floorClient(http.url)
  } else if (who === "ours" || who === "ours-client") {
    peer = await oursClient(
      http === undefined
        ? StdioClientTransport.layer({ command: process.execPath, args: [...NODE_FLAGS, s.script, ...s.stdio], stderr: "ignore" })
        : McpNodeHttpClient.layer({ url: http.url }),
      revision,
      who === "ours-client"
    )
  } else if (who === "v1") {
    peer = await sdkClient(
      new V1Client({ name: "bench", version: "1" }),
      http === undefined
        ? new V1Stdio({ command: process.execPath, args: [...NODE_FLAGS, s.script, ...s.stdio], stderr: "ignore" })
        : new V1Http(new URL(http.url))
    )
  } else {
    peer = await sdkClient(
      new V2Client(
        { name: "bench", version: "1" },
        how === "stateless" ? { versionNegotiation: { mode: "auto" } } : { supportedProtocolVersions: [revision] }
      ),
      http === undefined
        ? new V2Stdio({ command: process.execPath, args: [...NODE_FLAGS, s.script, ...s.stdio], stderr: "ignore" })
        : new V2Http(new URL(http.url))
    )
  }
  const serverPid = peer.serverPid ?? http?.pid ?? pidOf(s.script)
  return {
    ...peer,
    serverPid,
    close: async () => {
      await peer.close()
      http?.stop()
    }
  }
}

/** Runs `calls` echo calls with `concurrency` workers, driven as `drive` says (`promise: true`: ours from Promises). */
export const measure = async (peer, concurrency, calls, text = "hello", { promise = false } = {}) => {
  const latencies = []
  const server0 = peer.serverPid === undefined ? 0 : childCpuUs(peer.serverPid)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  await drive(peer, concurrency, calls, { text, promise, onLatency: (us) => latencies.push(us) })
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage(cpu0)
  const server = peer.serverPid === undefined ? NaN : childCpuUs(peer.serverPid) - server0
  latencies.sort((a, b) => a - b)
  return {
    rps: calls / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    clientUs: (cpu.user + cpu.system) / calls,
    serverUs: server / calls
  }
}

// "ours-promise" is our client driven through an Effect.runPromise per call, "ours-client" through a PromiseClient
// (what Promise code is offered); each gets rows of its own.
const whos = (how) =>
  how === "stateless"
    ? ["ours", "ours-promise", "ours-client", "v2"]
    : ["ours", "ours-promise", "ours-client", "v1", "v2"]
const label = { ours: "ours", v1: "sdk 1.32", v2: "sdk 2.4" }

/** CPU per call, client + server, as a multiple of the floor's: "11.0× the node:http floor". */
const floorRatio = (m, floor) => `${((m.clientUs + m.serverUs) / (floor.clientUs + floor.serverUs)).toFixed(1)}×`
/** The floor part of an HTTP row's ratio: ours, then each SDK of the row. */
const floorRatios = (s, ours, floor) =>
  `; CPU per call ${
    [`${floorRatio(s[ours], floor)} the node:http floor`, ...["v1", "v2"].filter((w) => s[w] !== undefined).map((w) =>
      `${label[w]} ${floorRatio(s[w], floor)}`
    )].join(", ")
  }`

/** Calls a second as a multiple of the floor's: "0.60×". */
const rateRatio = (m, floor) => `${(m.rps / floor.rps).toFixed(2)}×`
/**
 * The stdio floor part of a stdio row's ratio, for `clients` (ours first, then the SDKs of the row): "0.60× the stdio
 * floor's rate (sdk 1.32 0.60×, …); CPU per call 1.9× the stdio floor (sdk 1.32 2.1×, …)".
 */
const stdioFloorRatios = (s, clients, floor) => {
  const [first, ...others] = clients
  const theirs = (ratio) =>
    others.length === 0 ? "" : ` (${others.map((w) => `${label[w]} ${ratio(s[w], floor)}`).join(", ")})`
  return `; ${rateRatio(s[first], floor)} the stdio floor's rate${theirs(rateRatio)}; CPU per call ${
    floorRatio(s[first], floor)
  } the stdio floor${theirs(floorRatio)}`
}
// Issue 32's goals for stdio driven from Promises, as multiples of SDK 1.32's calls a second, by concurrency.
const promiseGoals = { 1: 1.3, [IN_FLIGHT]: 2 }

const summarise = (ms) => ({
  rps: median(ms.map((m) => m.rps)),
  p50: median(ms.map((m) => m.p50)),
  p99: median(ms.map((m) => m.p99)),
  clientUs: median(ms.map((m) => m.clientUs)),
  serverUs: median(ms.map((m) => m.serverUs))
})
const cell = (m) =>
  `${m.rps.toFixed(0)}/s, p50 ${(m.p50 / 1000).toFixed(2)} ms, p99 ${(m.p99 / 1000).toFixed(2)} ms, CPU µs client ${
    m.clientUs.toFixed(0)
  } server ${Number.isNaN(m.serverUs) ? "?" : m.serverUs.toFixed(0)}`

/**
 * Measures the echo rows of `hows` at `concurrency` in RUNS + 1 rounds (the first warms up), every row of every `how`
 * in each round; the floor of the group (node:http over HTTP, the bare stdio pair over stdio) is measured after each
 * how's rows in each round, and all its samples make one floor. Resolves with each how's summaries by client, and the
 * floor's.
 */
const measureRounds = async (hows, concurrency) => {
  const results = Object.fromEntries(hows.map((how) => [how, Object.fromEntries(whos(how).map((w) => [w, []]))]))
  const floor = []
  for (let i = 0; i < RUNS + 1; i++) {
    for (const how of hows) {
      for (const who of [...whos(how), "floor"]) {
        // A floor costs a fraction of a call of ours (a tenth over HTTP, about a third over stdio): five times the
        // calls keep its server's CPU, read from /proc in 10 ms ticks, as precise as the others'.
        const calls = (how === "stdio" ? CALLS : HTTP_CALLS) * (who === "floor" ? 5 : 1)
        const peer = await connect(who === "ours-promise" ? "ours" : who, how)
        const driver = { promise: who === "ours-promise" || who === "ours-client" }
        if (WARMUP > 0) await measure(peer, concurrency, WARMUP, "hello", driver)
        const m = await measure(peer, concurrency, calls, "hello", driver)
        await peer.close()
        if (i > 0) (who === "floor" ? floor : results[how][who]).push(m) // the first round warms up
      }
    }
  }
  const summaries = Object.fromEntries(
    Object.entries(results).map(([how, r]) => [how, Object.fromEntries(Object.entries(r).map(([w, ms]) => [w, summarise(ms)]))])
  )
  return { summaries, floor: floor.length === 0 ? undefined : summarise(floor) }
}

/**
 * The three rows of one echo measurement: the clients as their users drive them, and ours driven from Promises (by an
 * `Effect.runPromise` per call and through a `PromiseClient`). Over
 * stdio, each row gives its rate and CPU per call as multiples of the stdio floor's, and a row driven from Promises
 * also what issue 32's goal for it (a multiple of SDK 1.32's rate) is as a multiple of the floor's rate.
 */
const echoRows = (how, mode, concurrency, s, floor) => {
  const what = how === "stdio" ? "stdio" : how === "http" ? "HTTP 2025-11-25 session" : "HTTP 2026-07-28 stateless"
  const sdks = ["v1", "v2"].filter((w) => s[w] !== undefined)
  const row = { workload: `echo over ${what}, ${mode}`, ours: cell(s.ours) }
  for (const w of sdks) row[label[w]] = cell(s[w])
  row[how === "stdio" ? "stdio floor" : "node:http floor"] = cell(floor)
  row.ratio = sdks.map((w) => `${(s.ours.rps / s[w].rps).toFixed(2)}× ${label[w]}`).join(", ") +
    (how === "stdio" ? stdioFloorRatios(s, ["ours", ...sdks], floor) : floorRatios(s, "ours", floor))
  const goal = promiseGoals[concurrency]
  /** The row of ours driven from Promises as `who` is, `drivenBy` saying how. */
  const promiseRow = (who, drivenBy) => ({
    workload: `echo over ${what}, ${mode}, ours driven by ${drivenBy}`,
    ours: cell(s[who]),
    ratio: sdks.map((w) => `${(s[who].rps / s[w].rps).toFixed(2)}× ${label[w]}`).join(", ") + (how === "stdio"
      ? `${stdioFloorRatios(s, [who], floor)}; issue 32's goal, ${goal}× sdk 1.32, is ${
        (goal * s.v1.rps / floor.rps).toFixed(2)
      }× the stdio floor's rate`
      : `; CPU per call ${floorRatio(s[who], floor)} the node:http floor`)
  })
  return [row, promiseRow("ours-promise", "a runPromise per call"), promiseRow("ours-client", "PromiseClient")]
}

/** Runs the workload and returns its rows. */
export const run = async () => {
  const rows = []
  // BENCH_TRANSPORTS=stdio,http,stateless picks the echo rows (and leaves out set-up and the 1 MB payload).
  const only = process.env.BENCH_TRANSPORTS?.split(",")
  const hows = ["stdio", "http", "stateless"].filter((how) => only === undefined || only.includes(how))
  const modes = [["sequential", 1], [`${IN_FLIGHT} in flight`, IN_FLIGHT]]
  // stdio's rounds, then HTTP's (both eras in the same rounds, sharing one floor), one concurrency at a time; the rows
  // come out by transport, then concurrency, as before.
  const measured = new Map()
  for (const group of [hows.filter((how) => how === "stdio"), hows.filter((how) => how !== "stdio")]) {
    if (group.length === 0) continue
    for (const [mode, concurrency] of modes) {
      const { summaries, floor } = await measureRounds(group, concurrency)
      for (const how of group) {
        measured.set(`${how} ${mode}`, echoRows(how, mode, concurrency, summaries[how], floor))
        process.stderr.write(`bench: echo over ${how}, ${mode} done\n`)
      }
    }
  }
  for (const how of hows) for (const [mode] of modes) rows.push(...measured.get(`${how} ${mode}`))
  if (only !== undefined) return rows
  // connection set-up over HTTP (server already listening); spawn + initialize over stdio is startup.mjs's row
  {
    const times = { ours: [], v1: [], v2: [] }
    for (let i = 0; i < RUNS * 3 + 1; i++) {
      for (const who of ["ours", "v1", "v2"]) {
        const http = await listen(who)
        const t0 = process.hrtime.bigint()
        const peer = await connectTo(who, http.url)
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        await peer.close()
        http.stop()
        if (i > 0) times[who].push(ms)
      }
    }
    const m = Object.fromEntries(Object.entries(times).map(([w, t]) => [w, median(t)]))
    rows.push({
      workload: "connect over HTTP (2025-11-25)",
      ours: `${m.ours.toFixed(1)} ms`,
      [label.v1]: `${m.v1.toFixed(1)} ms`,
      [label.v2]: `${m.v2.toFixed(1)} ms`,
      ratio: `${(m.v1 / m.ours).toFixed(2)}× faster than ${label.v1}, ${(m.v2 / m.ours).toFixed(2)}× than ${label.v2}`
    })
  }
  // a 1 MB text, echoed over stdio
  const big = Object.fromEntries(["ours", "v1", "v2"].map((w) => [w, []]))
  for (let i = 0; i < RUNS + 1; i++) {
    for (const who of ["ours", "v1", "v2"]) {
      const peer = await connect(who, "stdio")
      const m = await measure(peer, 1, 20, megabyte)
      await peer.close()
      if (i > 0) big[who].push(m)
    }
  }
  const b = Object.fromEntries(Object.entries(big).map(([w, ms]) => [w, summarise(ms)]))
  rows.push({
    workload: "1 MB text echoed over stdio, sequential",
    ours: cell(b.ours),
    [label.v1]: cell(b.v1),
    [label.v2]: cell(b.v2),
    ratio: `${(b.ours.rps / b.v1.rps).toFixed(2)}× ${label.v1}, ${(b.ours.rps / b.v2.rps).toFixed(2)}× ${label.v2}`
  })
  return rows
}

/** Connects a 2025-11-25 client of `who` to a listening URL. */
const connectTo = async (who, url) => {
  if (who === "ours") {
    return oursClient(McpNodeHttpClient.layer({ url }), "2025-11-25")
  }
  if (who === "v1") return sdkClient(new V1Client({ name: "bench", version: "1" }), new V1Http(new URL(url)))
  return sdkClient(
    new V2Client({ name: "bench", version: "1" }, { supportedProtocolVersions: ["2025-11-25"] }),
    new V2Http(new URL(url))
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run()) process.stdout.write(`${JSON.stringify(row)}\n`)
}
