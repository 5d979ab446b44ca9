/**
 * Leaks over Streamable HTTP on 127.0.0.1, measured in both processes: a real server child (the node package's
 * `test/fixtures/leakServer.mjs --http`, run with --expose-gc, on the adapter of this test project) and this
 * client, in a 2025-11-25 session and statelessly under 2026-07-28. A warm-up client runs a round of each kind and
 * closes; then one client runs CALLS calls cancelled mid-flight, CALLS timed out and CALLS answered, and closes.
 * The server reports its numbers on SIGUSR2 (no connection of its own); the baseline is taken once it holds no
 * connection. Afterwards, in the server and in the client, the heap and the external memory after a full
 * collection are back within their slack of the baseline, and the active handles and requests (sockets included),
 * the live fibers and the server's connections are exactly back. The fixture's LEAK_OFFHEAP=1 (256 bytes kept per
 * call), LEAK_HANDLES=1 (a timer per call) and LEAK_FIBERS=1 (a fiber per call) make it fail.
 */
import { McpClient } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as Http from "node:http"
import * as Https from "node:https"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import {
  clientMemory,
  expectNoLeak,
  fixture,
  idle,
  rounds,
  type ServerNumbers,
  until
} from "../../node/test/leakProbe.js"
import { adapter } from "./helpers.js"

const built = fileURLToPath(new URL("../../node/dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the leak fixture imports ${built}`)

// Each cancelled or timed-out call costs a connection under 2026-07-28, so fewer of those and more answered ones:
// 2,400 calls in all (1,200 on the slower platform adapter), which a leak of 256 bytes a call turns into 614 KB
// (307 KB), more than twice the external memory's room.
const CALLS = Number(process.env.EFFECT_MCP_LEAK_WIRE_CALLS ?? (adapter !== "platform" ? 400 : 200))
const ANSWERED = 4
const ROUND = 100
// Long enough that most requests reach their handler (a new connection each under 2026-07-28) before timing out.
const TIMEOUT = "250 millis"

/** The fixture serving HTTP in a child process until the scope closes: its URL, and its numbers on SIGUSR2. */
const serveChild = Effect.gen(function*() {
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, ["--expose-gc", fixture, "--http"], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, EFFECT_MCP_HTTP_ADAPTER: adapter }
      })
    ),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )
  const reports = yield* Queue.unbounded<ServerNumbers>()
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (line.startsWith("MEMORY ")) Queue.unsafeOffer(reports, JSON.parse(line.slice("MEMORY ".length)))
    else process.stderr.write(`leak fixture: ${line}\n`)
  })
  const url = yield* Effect.async<string, Error>((resume) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("LISTENING ")) resume(Effect.succeed(line.slice("LISTENING ".length)))
    })
    child.on("exit", (code) => resume(Effect.fail(new Error(`the leak fixture exited with ${code}`))))
  }).pipe(Effect.orDie)
  /** The server's numbers after a full collection, asked for with a signal (no connection of its own). */
  const report = Effect.zipRight(Effect.sync(() => child.kill("SIGUSR2")), Queue.take(reports))
  return { url, report }
})

// The clients' keep-alive agents close a socket idle for 2 s, before the server's keep-alive timeout (node's 5 s)
// does: with node 20's default agent (no timeout), a busy client can hand a request to a socket the server has just
// closed, and the call fails with "socket hang up" (a race of the transport, not a leak, reported separately).
const agentOptions = { keepAlive: true, timeout: 2_000 }

/** A McpClient over this test project's HTTP client transport, on agents of its own, until the scope closes. */
const connect = (url: string, revision: "2025-11-25" | "2026-07-28") =>
  Effect.gen(function*() {
    const transport = adapter !== "platform"
      ? McpNodeHttpClient.layer({ url }, { http: new Http.Agent(agentOptions), https: new Https.Agent(agentOptions) })
      : McpHttpClient.layer({ url }).pipe(
        Layer.provide(NodeHttpClient.layerWithoutAgent),
        Layer.provide(NodeHttpClient.makeAgentLayer(agentOptions))
      )
    const context = yield* Layer.build(
      McpClient.layer({ name: "leaks", version: "1", revision }).pipe(
        Layer.provide(transport)
      )
    )
    return Context.get(context, McpClient.McpClient)
  })

/** Runs `f` with a client in its own scope, which is closed afterwards (closing its connections and session). */
const withClient = <A, E>(
  url: string,
  revision: "2025-11-25" | "2026-07-28",
  f: (client: McpClient.McpClientService) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const client = yield* connect(url, revision).pipe(Scope.extend(scope))
    return yield* f(client).pipe(Effect.ensuring(Scope.close(scope, Exit.void)))
  })

// The fixture serves on node:http or on the platform: the http-web project would only run the node:http one again.
describe.skipIf(adapter === "web").each(["2025-11-25", "2026-07-28"] as const)("leaks over HTTP (%s)", (revision) => {
  it.scopedLive(
    `${CALLS} calls cancelled mid-flight, ${CALLS} timed out and ${
      ANSWERED * CALLS
    } answered leave nothing in either process`,
    () =>
      Effect.gen(function*() {
        const fibers = yield* Supervisor.track
        yield* Effect.gen(function*() {
          const { report, url } = yield* serveChild
          yield* withClient(url, revision, (client) => rounds(client, ROUND, TIMEOUT, ANSWERED * ROUND))
          // The baseline, once the server has closed the warm-up client's last connection.
          yield* until("the server holds no connection", Effect.map(report, (s) => !("TCPSocketWrap" in s.resources)))
            .pipe(Effect.orDie)
          const server = yield* report
          const local = yield* clientMemory(fibers)

          yield* withClient(url, revision, (client) =>
            Effect.gen(function*() {
              for (let done = 0; done < CALLS; done += ROUND) {
                yield* rounds(client, Math.min(ROUND, CALLS - done), TIMEOUT, ANSWERED * Math.min(ROUND, CALLS - done))
              }
              yield* idle(client)
              expect(client.stats()).toEqual({ pending: 0, inFlight: 0 })
            }))

          // The client is gone: once its connections have closed, the server is back where it was.
          const same = (s: ServerNumbers) =>
            JSON.stringify([s.resources, s.fibers, s.stats]) ===
              JSON.stringify([server.resources, server.fibers, server.stats])
          yield* until("the server's handles, fibers and connections are back", Effect.map(report, same), "10 seconds")
            .pipe(Effect.ignore) // what is still not back fails below, with the difference
          const serverAfter = yield* report
          const localAfter = yield* clientMemory(fibers)
          expect(serverAfter.started - server.started).toBeGreaterThanOrEqual(CALLS)
          expect(serverAfter.interrupted).toBe(serverAfter.started)
          expect(serverAfter.stats).toEqual(server.stats)
          expectNoLeak("server", server, serverAfter)
          expectNoLeak("client", local, localAfter)
        }).pipe(Effect.supervised(fibers))
      }),
    120_000
  )
})
