/**
 * McpHost over real child servers: the scenario server and the everything server over stdio, and the
 * scenario server over HTTP (a child the test starts), under one host.
 */
import { ClientHandlers, McpServer, McpTest, RequestContext } from "@effect-mcp/core"
import { HostConfig, HostEvent, McpHost } from "@effect-mcp/host"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"

const scenarios = fileURLToPath(new URL("../../../examples/scenarios/dist/main.js", import.meta.url))
const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The first of the host's events that `matches` (the last 256 are replayed to a new subscriber, so one that came
 * already counts); fails after 20 s.
 */
const firstEvent = <E extends HostEvent.HostEvent>(
  host: McpHost.McpHostService,
  matches: (event: HostEvent.HostEvent) => event is E
) =>
  host.events.pipe(
    Stream.filter(matches),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the event never came") }),
    Effect.orDie
  )

/** A server's `ServerUp` by a process other than `pid` (a restart's). */
const upAgain =
  (server: string, pid: number) => (e: HostEvent.HostEvent): e is Extract<HostEvent.HostEvent, { _tag: "ServerUp" }> =>
    e._tag === "ServerUp" && e.server === server && e.pid !== pid

/** A server's `ServerGaveUp`. */
const gaveUp =
  (server: string) => (e: HostEvent.HostEvent): e is Extract<HostEvent.HostEvent, { _tag: "ServerGaveUp" }> =>
    e._tag === "ServerGaveUp" && e.server === server

/** Polls until `done` holds, where no event says so (a process of another's is gone): real time, generous. */
const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  check.pipe(
    Effect.filterOrFail(done, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(400))))
  )

/** Starts the scenario server over HTTP as a child; its URL, and the child stopped with the scope. */
const httpScenarios = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly pid: number }, Error>((resume) => {
    const child = spawn(process.execPath, [scenarios, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /LISTENING (\S+)/.exec(out)
      if (match) resume(Effect.succeed({ url: match[1]!, pid: child.pid! }))
    })
    child.on("exit", (code) => resume(Effect.fail(new Error(`the HTTP server exited (${code})`))))
  }),
  ({ pid }) => Effect.sync(() => alive(pid) && process.kill(pid, "SIGTERM"))
)

const fastRestart = Schedule.spaced("100 millis").pipe(Schedule.intersect(Schedule.recurs(20)))

const names = (catalogue: McpHost.Catalogue) => catalogue.tools.map((t) => t.name)

describe("HostConfig", () => {
  it("decodes the desktop clients' format", () => {
    const config = HostConfig.parse(JSON.stringify({
      mcpServers: {
        files: { command: "npx", args: ["-y", "some-server"], env: { TOKEN: "x" }, cwd: "/tmp" },
        remote: { url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer t" } }
      }
    }))
    expect(Either.getOrThrow(config).mcpServers).toEqual({
      files: { command: "npx", args: ["-y", "some-server"], env: { TOKEN: "x" }, cwd: "/tmp" },
      remote: { url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer t" } }
    })
  })

  it("names the bad field", () => {
    const message = (u: unknown) =>
      Either.match(HostConfig.decode(u), { onLeft: (e) => e.message, onRight: () => "ok" })
    expect(message({ mcpServers: { files: { command: "npx", args: "-y" } } })).toMatch(/mcpServers\.files\.args/)
    expect(message({ mcpServers: { remote: { url: "ftp://x" } } })).toMatch(/mcpServers\.remote\.url: an http/)
    expect(message({ mcpServers: { both: { url: "http://x", command: "y" } } })).toMatch(
      /mcpServers\.both: needs either `command`/
    )
    expect(message({ servers: {} })).toMatch(/mcpServers/)
    expect(Either.isLeft(HostConfig.parse("{ not json"))).toBe(true)
  })
})

/**
 * A small MCP server on 127.0.0.1 that answers the handshake and `tools/list` until `forget` is called; from then on
 * it answers everything, `initialize` included, with 404 "Session not found" (as the official SDK servers do).
 */
const forgetful = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly forget: () => void; readonly close: () => void }>((resume) => {
    let forgot = false
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => void (body += chunk.toString()))
      req.on("end", () => {
        if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end()
        const message = JSON.parse(body) as { id?: string | number; method: string; params?: object }
        if (message.id === undefined) return void res.writeHead(202).end()
        const answer = (status: number, value: object, headers: Record<string, string> = {}) =>
          void res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value))
        const id = message.id
        if (forgot) {
          return answer(404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
        }
        if (message.method === "initialize") {
          const { protocolVersion } = message.params as { protocolVersion: string }
          const result = {
            protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "forgetful", version: "0" }
          }
          return answer(200, { jsonrpc: "2.0", id, result }, { "mcp-session-id": "s1" })
        }
        if (message.method === "tools/list") return answer(200, { jsonrpc: "2.0", id, result: { tools: [] } })
        return answer(200, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        url: `http://127.0.0.1:${port}/mcp`,
        forget: () => void (forgot = true),
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      }))
    })
  }),
  (server) => Effect.sync(server.close)
)

describe("McpHost", () => {
  it.live(
    "a server that hangs (SIGSTOP) fails its health check and is replaced; the frozen child is killed",
    () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const host = yield* McpHost.make({
          servers: { a: { command: process.execPath, args: [scenarios, "--stdio"] } },
          restart: fastRestart,
          healthCheck: { interval: "200 millis", timeout: "300 millis" },
          stderr: "ignore"
        }).pipe(Scope.extend(scope))
        const events = yield* host.events.pipe(Stream.runCollect, Effect.fork)
        const pid = (yield* host.statuses)[0]!.pid!
        process.kill(pid, "SIGSTOP")
        const back = yield* firstEvent(host, upAgain("a", pid))
        yield* eventually(Effect.sync(() => alive(pid)), (a) => !a)
        expect((yield* host.callTool("a__echo", { text: "awake" })).content).toEqual([{ type: "text", text: "awake" }])
        yield* Scope.close(scope, Exit.void)
        const down = Chunk.toReadonlyArray(yield* Fiber.join(events)).find((e) =>
          e._tag === "ServerDown" && e.server === "a"
        )
        expect(down && HostEvent.describe(down)).toMatch(/health check failed/)
        yield* eventually(Effect.sync(() => alive(back.pid!)), (a) => !a)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "three servers, one catalogue; kill -9 one mid-call: it comes back, the others never notice",
    () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const http = yield* Scope.extend(httpScenarios, scope)
        const host = yield* McpHost.make({
          servers: {
            a: { command: process.execPath, args: [scenarios, "--stdio"] },
            b: { command: process.execPath, args: [everything, "--stdio"] },
            c: { url: http.url }
          },
          restart: fastRestart,
          stderr: "ignore"
        }).pipe(Scope.extend(scope))
        const events = yield* host.events.pipe(Stream.runCollect, Effect.fork)

        const before = yield* host.statuses
        expect(before.map((s) => [s.server, s.state])).toEqual([["a", "Up"], ["b", "Up"], ["c", "Up"]])
        const pidA = before[0]!.pid!
        const pidB = before[1]!.pid!
        const catalogue = yield* host.catalogue
        expect(names(catalogue)).toEqual(
          expect.arrayContaining(["a__echo", "a__wait", "b__test_simple_text", "c__add"])
        )
        expect(catalogue.prompts.map((p) => p.name)).toEqual(
          expect.arrayContaining(["a__greeting", "b__test_simple_prompt"])
        )

        // routed by name
        const echoed = yield* host.callTool("a__echo", { text: "hi" })
        expect(echoed.content).toEqual([{ type: "text", text: "hi" }])
        expect((yield* host.callTool("c__add", { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 })
        expect(yield* Effect.flip(host.callTool("nobody__echo"))).toMatchObject({ _tag: "ToolNotFound" })

        // b keeps working through a's crash: a call every 20 ms, none may fail
        const steady = yield* host.callTool("b__test_simple_text").pipe(
          Effect.zipRight(host.callTool("c__echo", { text: "c" })),
          Effect.repeat(Schedule.spaced("20 millis")),
          Effect.fork
        )

        // a__wait reports one progress update once its handler runs: then the call is in flight on the server.
        const waiting = yield* Deferred.make<void>()
        const inFlight = yield* Effect.fork(
          host.callTool("a__wait", {}, { onProgress: () => Deferred.unsafeDone(waiting, Exit.void) })
        )
        yield* Deferred.await(waiting).pipe(Effect.timeout("10 seconds"))
        process.kill(pidA, "SIGKILL")
        const failed = yield* Fiber.await(inFlight)
        expect(Exit.isFailure(failed)).toBe(true)
        const error = yield* Effect.flip(Fiber.join(inFlight))
        expect(error).toMatchObject({ _tag: "ServerUnavailable", server: "a" })

        const back = yield* firstEvent(host, upAgain("a", pidA))
        expect(back.pid).toBeDefined()
        expect(alive(pidA)).toBe(false)
        // A server's lists are read before it is said to be up.
        expect(names(yield* host.catalogue)).toContain("a__echo")
        expect((yield* host.callTool("a__echo", { text: "again" })).content).toEqual([{ type: "text", text: "again" }])

        // the others never noticed
        expect(steady.unsafePoll()).toBeNull()
        yield* Fiber.interrupt(steady)
        const after = yield* host.statuses
        expect(after[1]!.pid).toBe(pidB)
        expect(after[2]!.state).toBe("Up")

        const pidA2 = after[0]!.pid!
        yield* Scope.close(scope, Exit.void)
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(events))
        const of = (server: string) => seen.filter((e) => e.server === server).map((e) => e._tag)
        expect(of("a")).toEqual(expect.arrayContaining(["ServerUp", "ServerDown", "ServerRestarting", "ServerStopped"]))
        expect(of("b").filter((t) => t === "ServerDown" || t === "ServerRestarting")).toEqual([])
        expect(of("c").filter((t) => t === "ServerDown" || t === "ServerRestarting")).toEqual([])
        const down = seen.find((e) => e._tag === "ServerDown" && e.server === "a")
        expect(down && HostEvent.describe(down)).toMatch(/SIGKILL/)

        // shutdown leaves no child process
        yield* eventually(Effect.sync(() => [pidA2, pidB].filter(alive)), (left) => left.length === 0)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a server that always crashes stays down once the schedule gives up, and says why",
    () =>
      Effect.gen(function*() {
        const host = yield* McpHost.make({
          servers: {
            crashy: {
              command: process.execPath,
              args: ["-e", "process.stderr.write('no config found\\n'); process.exit(3)"]
            }
          },
          restart: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(2))),
          stderr: "ignore"
        })
        yield* firstEvent(host, gaveUp("crashy"))
        const status = yield* host.statuses
        expect(status[0]!.state).toBe("GaveUp")
        expect(status[0]!.reason).toMatch(/exited with code 3/)
        expect(status[0]!.reason).toMatch(/no config found/)
        const error = yield* Effect.flip(host.client("crashy"))
        expect(error).toMatchObject({ _tag: "ServerUnavailable", server: "crashy" })
        expect(error.message).toMatch(/gave up after 3 attempts/)
        const tags = Chunk.toReadonlyArray(
          yield* host.events.pipe(Stream.takeUntil((e) => e._tag === "ServerGaveUp"), Stream.runCollect)
        ).map((e) => e._tag)
        expect(tags.filter((t) => t === "ServerStarting")).toHaveLength(3)
        expect(tags.at(-1)).toBe("ServerGaveUp")
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "server-to-client requests are answered by the handler Layers the host is given",
    () =>
      Effect.gen(function*() {
        const host = yield* McpHost.McpHost
        const asked = yield* host.callTool("s__ask_name")
        expect(asked.content).toEqual([{ type: "text", text: "hello Ada" }])
        const roots = yield* host.callTool("s__roots")
        expect(roots.content).toEqual([{ type: "text", text: "file:///work" }])
        const sampled = yield* host.callTool("s__summarize", { text: "long" })
        expect(sampled.content).toEqual([{ type: "text", text: "model host-model said: short" }])
      }).pipe(
        Effect.provide(
          McpHost.layer({
            servers: { s: { command: process.execPath, args: [scenarios, "--stdio"] } },
            stderr: "ignore"
          })
            .pipe(
              Layer.provide(Layer.mergeAll(
                ClientHandlers.elicitation({
                  elicit: () => Effect.succeed({ action: "accept" as const, content: { name: "Ada" } })
                }),
                ClientHandlers.roots({ roots: Effect.succeed([{ uri: "file:///work", name: "work" }]) }),
                ClientHandlers.sampling({
                  createMessage: () =>
                    Effect.succeed({
                      role: "assistant" as const,
                      content: { type: "text" as const, text: "short" },
                      model: "host-model"
                    })
                })
              ))
            )
        )
      ),
    { timeout: 30_000 }
  )

  it.live(
    "lazy servers start at first use; servers built in code as Layers; progress and restart by hand",
    () =>
      Effect.gen(function*() {
        const Slow = McpServer.tool({
          name: "steps",
          input: Schema.Struct({ n: Schema.Int }),
          handler: ({ n }) =>
            Effect.gen(function*() {
              for (let i = 1; i <= n; i++) yield* RequestContext.progress(i, n)
              return `${n} steps`
            })
        })
        const host = yield* McpHost.make({
          servers: {
            mem: {
              transport: McpTest.serverTransport(
                Slow.pipe(Layer.provideMerge(McpServer.layer({ name: "mem", version: "1" })))
              )
            },
            later: { command: process.execPath, args: [scenarios, "--stdio"] }
          },
          lazy: ["later"],
          stderr: "ignore"
        })
        expect((yield* host.statuses).map((s) => [s.server, s.state])).toEqual([["mem", "Up"], ["later", "Idle"]])
        expect(names(yield* host.catalogue)).toEqual(["mem__steps"])
        expect((yield* host.callTool("mem__steps", { n: 2 })).content).toEqual([{ type: "text", text: "2 steps" }])

        const events = yield* host.callToolStream("later__count", { to: 3 }).pipe(Stream.runCollect)
        const progress = Chunk.toReadonlyArray(events).flatMap((
          e
        ) => (e._tag === "Progress" ? [e.progress.progress] : []))
        expect(progress).toEqual([1, 2, 3])
        expect((yield* host.statuses)[1]!.state).toBe("Up")

        // list_changed refreshes the catalogue
        const tools = names(yield* host.catalogue).filter((n) => n.startsWith("later__")).length
        yield* host.callTool("later__add_tool", { name: "fresh" })
        yield* firstEvent(
          host,
          (e): e is HostEvent.HostEvent =>
            e._tag === "CatalogueChanged" && e.server === "later" && e.tools === tools + 1
        )
        expect(names(yield* host.catalogue)).toContain("later__fresh")
        expect((yield* host.callTool("later__fresh")).content).toEqual([{ type: "text", text: "I am fresh" }])

        const pid = (yield* host.statuses)[1]!.pid!
        yield* host.restart("later")
        const again = yield* firstEvent(host, upAgain("later", pid))
        expect(alive(pid)).toBe(false)
        expect(again.pid).toBeDefined()
        expect(yield* Effect.flip(host.restart("nobody"))).toMatchObject({ _tag: "UnknownServer" })
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a session the server forgot and will not renew makes the server unavailable and restarts its connection",
    () =>
      Effect.gen(function*() {
        const server = yield* forgetful
        const host = yield* McpHost.make({
          servers: { f: { url: server.url } },
          restart: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(1))),
          healthCheck: false
        })
        expect((yield* host.statuses)[0]!.state).toBe("Up")
        server.forget()
        const error = yield* Effect.flip(host.callTool("f__anything"))
        expect(error).toMatchObject({ _tag: "ServerUnavailable", server: "f" })
        expect(error.message).toMatch(/session s1 expired/)
        // The connection is restarted (and the server, refusing every handshake now, is given up on).
        yield* firstEvent(host, gaveUp("f"))
        const status = yield* host.statuses
        expect(status[0]!.state).toBe("GaveUp")
        expect(status[0]!.reason).toMatch(/HTTP 404/)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})
