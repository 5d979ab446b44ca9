/**
 * dist/worker.js (the everything server bundled as one ES module whose default export is `{ fetch }`) on the real
 * runtimes: Bun (`Bun.serve`), Deno (`deno serve`) and Cloudflare's workerd (through miniflare), each on 127.0.0.1
 * at a free port, started for its block and stopped after it. Each is driven over loopback HTTP by our client and by
 * the official SDK v2 client, in a 2025-11-25 session and 2026-07-28 stateless: tools, a call, a call with progress
 * (SSE), and a cancelled call. The binaries come from the npm packages `bun`, `deno` and `workerd` (miniflare's).
 */
import { McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { describe, expect, layer } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { Miniflare } from "miniflare"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)
const worker = fileURLToPath(new URL("../dist/worker.js", import.meta.url))

/** The endpoint of the runtime under test. */
class Endpoint extends Context.Tag("runtimes/Endpoint")<Endpoint, { readonly url: string }>() {}

/** A port no one listens on now (the runtime binds it right after). */
const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Waits until something answers HTTP at `url` (any status), for at most 30 s. */
const answering = (url: string) =>
  Effect.tryPromise(() => fetch(url, { method: "HEAD" })).pipe(
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds"))),
    Effect.orDie
  )

/** Runs a runtime's command serving dist/worker.js on `port`, until the scope closes (then stops it by its pid). */
const child = (command: string, args: (port: number) => ReadonlyArray<string>) =>
  Layer.scoped(
    Endpoint,
    Effect.gen(function*() {
      const port = yield* freePort
      let stderr = ""
      const process_ = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const spawned = spawn(command, args(port), {
            stdio: ["ignore", "ignore", "pipe"],
            env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" }
          })
          spawned.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
          return spawned
        }),
        (spawned) => Effect.sync(() => spawned.kill("SIGKILL"))
      )
      const url = `http://127.0.0.1:${port}/mcp`
      yield* answering(url).pipe(
        Effect.timeoutFail({
          duration: "30 seconds",
          onTimeout: () => new Error(`${command} did not answer (exit ${process_.exitCode}): ${stderr}`)
        }),
        Effect.orDie
      )
      return { url }
    })
  )

/** Bun, serving the worker with `Bun.serve` on 127.0.0.1 (no idle timeout: SSE streams may be quiet for long). */
const bun = child(
  join(dirname(require.resolve("bun/package.json")), "bin", "bun.exe"),
  (port) => [
    "--eval",
    `import worker from ${JSON.stringify(worker)}; ` +
    `Bun.serve({ hostname: "127.0.0.1", port: ${port}, idleTimeout: 0, fetch: (request) => worker.fetch(request) })`
  ]
)

/** Deno, serving the worker's default export with `deno serve`. */
const deno = child(
  (require("deno/install_api.cjs") as { runInstall: () => string }).runInstall(),
  (port) => ["serve", "--host", "127.0.0.1", "--port", String(port), worker]
)

/** workerd, through miniflare, serving the worker as a module worker. */
const workerd = Layer.scoped(
  Endpoint,
  Effect.gen(function*() {
    const miniflare = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Miniflare({
          modules: true,
          scriptPath: worker,
          host: "127.0.0.1",
          port: 0,
          compatibilityDate: "2026-07-01",
          compatibilityFlags: ["enable_request_signal"]
        })
      ),
      (mf) => Effect.promise(() => mf.dispose())
    )
    const ready = yield* Effect.promise(() => miniflare.ready)
    return { url: new URL("/mcp", ready).href }
  })
)

const revisions = ["2025-11-25", "2026-07-28"] as const

/** Our client of the endpoint at `revision`, until the scope closes. */
const ours = (revision: typeof revisions[number]) =>
  Effect.gen(function*() {
    const { url } = yield* Endpoint
    // The transport is built in the test's scope: Effect.provide would end it as soon as the client is made.
    const transport = yield* Layer.build(McpNodeHttpClient.layer({ url }))
    return yield* McpClient.make({ name: "runtimes", version: "0", revision }).pipe(Effect.provide(transport))
  })

/** The official SDK v2 client of the endpoint at `revision`, until the scope closes. */
const theirs = (revision: typeof revisions[number]) =>
  Effect.flatMap(Endpoint, ({ url }) =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new V2Client(
          { name: "sdk2-runtimes", version: "2.4.0" },
          revision === "2026-07-28"
            ? { versionNegotiation: { mode: "auto" } }
            : { supportedProtocolVersions: [revision] }
        )
        await client.connect(new V2Http(new URL(url)))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    ))

/** How many `test_cancellable` calls the server saw cancelled, once it is at least `atLeast` (or after its wait). */
const cancellations = (client: McpClient.McpClientService, atLeast: number) =>
  Effect.map(
    client.callTool("test_cancellations", { atLeast }),
    (result) => (result.structuredContent as { readonly cancelled: number }).cancelled
  )

/**
 * Each runtime, and whether it tells a handler that a client went away before the answer (`request.signal`): workerd
 * under miniflare does not (not even with `enable_request_signal`), so a 2026-07-28 call whose client leaves runs on
 * there; a session's call is still cancelled by the client's `notifications/cancelled`.
 */
const runtimes = [
  { name: "Bun", layer: bun, seesDisconnect: true },
  { name: "Deno", layer: deno, seesDisconnect: true },
  { name: "workerd (miniflare)", layer: workerd, seesDisconnect: false }
] as const

for (const runtime of runtimes) {
  describe(runtime.name, () => {
    layer(runtime.layer, { timeout: "60 seconds", excludeTestServices: true })((it) => {
      for (const revision of revisions) {
        it.scoped(`our client, ${revision}: tools, echo, a call with progress, a cancelled call`, () =>
          Effect.gen(function*() {
            const client = yield* ours(revision)
            expect(client.revision).toBe(revision)
            expect((yield* client.listTools()).map((t) => t.name)).toContain("echo")
            const echoed = yield* client.callTool("echo", { text: `hello ${runtime.name}` })
            expect(echoed.content).toEqual([{ type: "text", text: `hello ${runtime.name}` }])
            const progress: Array<number> = []
            const reported = yield* client.callTool("test_tool_with_progress", {}, {
              onProgress: (p) => progress.push(p.progress)
            })
            expect(progress).toEqual([0, 50, 100])
            expect(JSON.stringify(reported.content)).toMatch(/Progress reported for token /)
            // A call that waits to be cancelled: the client's timeout cancels it, which reaches the handler (a session's
            // by notifications/cancelled, a stateless one by its closed response), and the endpoint serves on.
            const before = yield* cancellations(client, 0)
            const cancelled = yield* client.callTool("test_cancellable", {}, { timeout: "300 millis" }).pipe(
              Effect.flip
            )
            expect(cancelled._tag).toBe("RequestTimeout")
            if (revision !== "2026-07-28" || runtime.seesDisconnect) {
              expect(yield* cancellations(client, before + 1)).toBe(before + 1)
            }
            expect((yield* client.callTool("echo", { text: "after" })).content).toEqual([{
              type: "text",
              text: "after"
            }])
          }))

        it.scoped(`the official SDK v2 client, ${revision}: tools, echo, a call with progress`, () =>
          Effect.gen(function*() {
            const client = yield* theirs(revision)
            expect(client.getNegotiatedProtocolVersion()).toBe(revision)
            const listed = yield* Effect.promise(() => client.listTools())
            expect(listed.tools.map((t) => t.name)).toContain("echo")
            const echoed = yield* Effect.promise(() =>
              client.callTool({ name: "echo", arguments: { text: `hello ${runtime.name}` } })
            )
            expect(echoed.content).toEqual([{ type: "text", text: `hello ${runtime.name}` }])
            const progress: Array<number> = []
            const reported = yield* Effect.promise(() =>
              client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
                onprogress: (p) => progress.push(p.progress)
              })
            )
            expect(progress).toEqual([0, 50, 100])
            expect(reported.content).toHaveLength(1)
            expect(JSON.stringify(reported.content)).toMatch(/Progress reported for token /)
          }))
      }
    })
  })
}
