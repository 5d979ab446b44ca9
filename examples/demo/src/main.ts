/**
 * The effect-mcp demo: a real run of a supervised host. It starts three real MCP servers (two child
 * processes over stdio, one over Streamable HTTP), lists their combined catalogue, calls a tool that
 * reports progress, cancels a slow call, kills a server and watches the host bring it back, answers a
 * server's question, and stops everything. Output goes to stdout, top to bottom; it ends by itself.
 */
import { ClientHandlers } from "@effect-mcp/core"
import { HostEvent, McpHost } from "@effect-mcp/host"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const scenarios = fileURLToPath(new URL("../../scenarios/dist/main.js", import.meta.url))
const everything = fileURLToPath(new URL("../../everything/dist/main.js", import.meta.url))

const started = Date.now()
const clock = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[22m` : s)
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[22m` : s)

let step = 0
const section = (title: string) => Console.log(`\n${bold(`${++step}. ${title}`)}`)
const say = (line: string) => Console.log(`   ${line}`)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The scenario server over HTTP, as a child process on 127.0.0.1; stopped with the scope. */
const httpServer = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly pid: number }, Error>((resume) => {
    const child = spawn(process.execPath, [scenarios, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /LISTENING (\S+)/.exec(out)
      if (match) resume(Effect.succeed({ url: match[1]!, pid: child.pid! }))
    })
    child.on("exit", (code) => resume(Effect.fail(new Error(`the HTTP server exited with code ${code}`))))
  }),
  ({ pid }) => Effect.sync(() => alive(pid) && process.kill(pid, "SIGTERM"))
)

const bar = (done: number, total: number, width = 30) => {
  const filled = Math.round((done / total) * width)
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(done).padStart(2)}/${total}`
}

/** A server asks the user for their name: this host answers for them. */
const handlers = Layer.mergeAll(
  ClientHandlers.elicitation({
    elicit: (params) =>
      Effect.as(
        say(`${dim("(the server asks:")} "${params.message}" ${dim("-> the host answers: Ada)")}`),
        { action: "accept" as const, content: { name: "Ada" } }
      )
  }),
  ClientHandlers.sampling({
    createMessage: () =>
      Effect.succeed({
        role: "assistant" as const,
        content: { type: "text" as const, text: "MCP lets tools and models talk." },
        model: "demo-model"
      })
  })
)

const demo = Effect.gen(function*() {
  yield* Console.log(bold("effect-mcp demo: one supervised host, three real MCP servers"))

  yield* section("Start a host with three servers")
  const http = yield* httpServer
  yield* say(`started the scenario server over HTTP at ${http.url} (pid ${http.pid})`)
  yield* say("the host connects to it and spawns two more servers over stdio; its events, as they happen:")
  const host = yield* McpHost.make({
    servers: {
      tools: { command: process.execPath, args: [scenarios, "--stdio"] },
      everything: { command: process.execPath, args: [everything, "--stdio"] },
      remote: { url: http.url }
    },
    restart: Schedule.exponential("200 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(5))),
    stderr: "ignore"
  })
  const printer = yield* host.events.pipe(
    Stream.filter((e) => e._tag !== "CatalogueChanged"),
    Stream.runForEach((e) => say(`${dim(clock())} ${dim("event")} ${HostEvent.describe(e)}`)),
    Effect.fork
  )
  yield* Effect.sleep("50 millis")
  for (const s of yield* host.statuses) {
    yield* say(
      `${s.server.padEnd(11)} ${s.state.padEnd(4)} revision ${s.revision}${s.pid ? `, pid ${s.pid}` : " (HTTP)"}`
    )
  }

  yield* section("One catalogue: every server's tools, prefixed by server")
  const catalogue = yield* host.catalogue
  for (const server of host.servers) {
    const tools = catalogue.tools.filter((t) => t.server === server)
    yield* say(`${bold(server)} (${tools.length} tools)`)
    for (const t of tools.slice(0, 6)) {
      const about = t.tool.description ?? ""
      yield* say(`  ${t.name.padEnd(40)} ${dim(about.length > 46 ? `${about.slice(0, 45)}…` : about)}`)
    }
    if (tools.length > 6) yield* say(dim(`  ... and ${tools.length - 6} more`))
  }
  yield* say(
    `${catalogue.tools.length} tools, ${catalogue.resources.length} resources, ${catalogue.prompts.length} prompts in all`
  )

  yield* section("Call a tool that reports progress (tools__count)")
  let updates = 0
  const tty = process.stdout.isTTY === true
  yield* host.callToolStream("tools__count", { to: 10, delayMs: 120 }).pipe(
    Stream.runForEach((event) =>
      event._tag === "Progress"
        ? Effect.sync(() => {
          updates++
          const line = `   ${bar(event.progress.progress, event.progress.total ?? 10)} ${event.progress.message ?? ""}`
          process.stdout.write(tty ? `\r${line}` : `${line}\n`)
        })
        : Effect.sync(() => {
          const text = event.result.content[0]?.type === "text" ? event.result.content[0].text : ""
          process.stdout.write(`${tty ? "\n" : ""}   result: "${text}" after ${updates} progress updates\n`)
        })
    )
  )

  yield* section("Cancel a slow call (remote__wait never answers by itself)")
  const before = yield* host.callTool("remote__cancellations")
  const slow = yield* Effect.fork(host.callTool("remote__wait"))
  yield* Effect.sleep("400 millis")
  yield* say("the call has run for 400 ms; interrupting its fiber sends notifications/cancelled")
  yield* Fiber.interrupt(slow)
  const counted = (r: { readonly structuredContent?: unknown }) =>
    (r.structuredContent as { readonly cancelled?: number } | undefined)?.cancelled ?? 0
  const after = yield* host.callTool("remote__cancellations").pipe(
    Effect.filterOrFail((r) => counted(r) > counted(before), () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(40))))
  )
  yield* say(`the server saw the cancellation: it has cancelled ${counted(after)} call(s)`)

  yield* section("Kill a server with SIGKILL and watch the host bring it back")
  const victim = (yield* host.statuses).find((s) => s.server === "tools")!
  const inFlight = yield* Effect.fork(Effect.either(host.callTool("tools__wait")))
  yield* Effect.sleep("200 millis")
  yield* say(`kill -9 ${victim.pid} (the "tools" server, with a call in flight)`)
  process.kill(victim.pid!, "SIGKILL")
  const outcome = yield* Fiber.join(inFlight)
  yield* say(
    `the call in flight failed, typed: ${
      outcome._tag === "Left" ? `${outcome.left._tag}: ${outcome.left.message}` : "(it succeeded?)"
    }`
  )
  const back = yield* host.statuses.pipe(
    Effect.map((all) => all.find((s) => s.server === "tools")!),
    Effect.filterOrFail((s) => s.state === "Up" && s.pid !== victim.pid, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(200))))
  )
  yield* Effect.sleep("100 millis")
  const echoed = yield* host.callTool("tools__echo", { text: "I'm back" })
  yield* say(
    `"tools" is up again as pid ${back.pid}; tools__echo says "${
      echoed.content[0]?.type === "text" ? echoed.content[0].text : ""
    }"`
  )
  const others = (yield* host.statuses).filter((s) => s.server !== "tools").map((s) => `${s.server} ${s.state}`)
  yield* say(`the other servers never noticed: ${others.join(", ")}`)

  yield* section("A server asks the host (elicitation and sampling)")
  const asked = yield* host.callTool("tools__ask_name")
  yield* say(`tools__ask_name answered: "${asked.content[0]?.type === "text" ? asked.content[0].text : ""}"`)
  const summary = yield* host.callTool("remote__summarize", { text: "a long text about MCP" })
  yield* say(`remote__summarize answered: "${summary.content[0]?.type === "text" ? summary.content[0].text : ""}"`)

  const pids = (yield* host.statuses).flatMap((s) => (s.pid === undefined ? [] : [s.pid])).concat(http.pid)
  yield* section("Shut down (closing the host's scope)")
  return { pids, printer }
})

const program = Effect.gen(function*() {
  const { pids, printer } = yield* Effect.scoped(demo)
  yield* Fiber.join(printer)
  yield* Effect.sleep("300 millis")
  const left = pids.filter(alive)
  yield* say(
    left.length === 0
      ? `the host stopped; no child process is left (${pids.join(", ")} are gone)`
      : `still running: ${left}`
  )
  yield* Console.log(`\n${bold("done")} in ${clock().trim()}.`)
  if (left.length > 0) return yield* Effect.fail(new Error("child processes outlived the host"))
})

program.pipe(
  Effect.provide(handlers),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
