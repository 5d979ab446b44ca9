/**
 * McpLogger: Effect logs inside a handler reach the client as `notifications/message`, with the level the client
 * asked for (logging/setLevel on a handshake revision, the per-request `_meta` level under 2026-07-28); logs outside
 * a handler, and servers without the layer, send nothing.
 */
import { McpLogger, McpServer, RequestContext } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { connect } from "./helpers.js"

const info = { name: "logger-test", version: "1.0.0" }

/** Logs at every level, each message naming the call (`n`). */
const Chatty = McpServer.tool({
  name: "chatty",
  input: Schema.Struct({ n: Schema.Number }),
  handler: ({ n }) =>
    Effect.gen(function*() {
      yield* Effect.logDebug(`debug ${n}`)
      yield* Effect.logInfo(`info ${n}`)
      yield* Effect.logWarning(`warning ${n}`).pipe(Effect.annotateLogs("logger", "db"))
      yield* Effect.logError(`error ${n}`, "and more").pipe(Effect.annotateLogs("table", "users"))
      yield* Effect.logFatal(`fatal ${n}`)
      return "done"
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Debug))
})

/** A server of `Chatty` whose logs go to the client (`forward`) or not. */
const chattyServer = (forward: boolean) => {
  const server = Chatty.pipe(Layer.provideMerge(McpServer.layer(info)))
  return forward ? Layer.provide(server, McpLogger.layerWith({ logger: "chatty" })) : server
}

/** What call `n` of `Chatty` sends when every level passes. */
const everything = (n: number) => [
  { level: "debug", data: `debug ${n}`, logger: "chatty" },
  { level: "info", data: `info ${n}`, logger: "chatty" },
  { level: "warning", data: `warning ${n}`, logger: "db" },
  { level: "error", data: { message: [`error ${n}`, "and more"], annotations: { table: "users" } }, logger: "chatty" },
  { level: "critical", data: `fatal ${n}`, logger: "chatty" }
]

/** The first `count` log messages the client gets while `calls` runs. */
const firstMessages = <E>(
  client: { readonly logMessages: Stream.Stream<unknown> },
  count: number,
  calls: Effect.Effect<unknown, E>
) =>
  Effect.gen(function*() {
    const messages = yield* client.logMessages.pipe(Stream.take(count), Stream.runCollect, Effect.fork)
    // The forked stream subscribes on its first steps: the logs arrive within the call, so it must be subscribed first.
    yield* Effect.repeatN(Effect.yieldNow(), 2)
    yield* calls
    return Chunk.toReadonlyArray(yield* Fiber.join(messages))
  })

describe("McpLogger", () => {
  it.scoped("handshake revision: every level until logging/setLevel, then only what passes it", () =>
    Effect.gen(function*() {
      const client = yield* connect(chattyServer(true), { client: { name: "c", version: "1", revision: "2025-11-25" } })
      const seen = yield* firstMessages(
        client,
        8,
        Effect.gen(function*() {
          yield* client.callTool("chatty", { n: 1 })
          yield* client.setLoggingLevel("warning")
          yield* client.callTool("chatty", { n: 2 })
        })
      )
      expect(seen).toEqual([...everything(1), ...everything(2).slice(2)])
    }))

  it.scoped("2026-07-28: nothing for a request that names no level, then what passes the level it names", () =>
    Effect.gen(function*() {
      const client = yield* connect(chattyServer(true))
      expect(client.revision).toBe("2026-07-28")
      const seen = yield* firstMessages(
        client,
        4,
        Effect.gen(function*() {
          yield* client.callTool("chatty", { n: 1 })
          yield* client.setLoggingLevel("info")
          yield* client.callTool("chatty", { n: 2 })
        })
      )
      // Call 1 sent nothing: the first message is call 2's.
      expect(seen).toEqual(everything(2).slice(1))
    }))

  it.effect("a log outside a handler sends nothing, and a server without the layer forwards nothing", () =>
    Effect.gen(function*() {
      // Each server in a scope of its own: a Logger layer built in a scope stays installed in it.
      const seen = yield* Effect.scoped(Effect.gen(function*() {
        const forwarding = yield* connect(chattyServer(true), {
          client: { name: "c", version: "1", revision: "2025-11-25" }
        })
        return yield* firstMessages(
          forwarding,
          1,
          Effect.gen(function*() {
            yield* Effect.logWarning("outside any handler")
            yield* forwarding.callTool("chatty", { n: 1 })
          }).pipe(Effect.provide(McpLogger.layer))
        )
      }))
      expect(seen).toEqual(everything(1).slice(0, 1))

      // Without the layer the handler's logs stay on the server; the one message is the one a handler sent itself.
      const Both = McpServer.tool({
        name: "both",
        input: Schema.Struct({}),
        handler: () =>
          Effect.logWarning("an Effect log").pipe(
            Effect.zipRight(RequestContext.log("notice", "by hand")),
            Effect.as("done")
          )
      })
      const silent = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connect(Both.pipe(Layer.provideMerge(McpServer.layer(info))), {
          client: { name: "c", version: "1", revision: "2025-11-25" }
        })
        return yield* firstMessages(client, 1, client.callTool("both", {}))
      }))
      expect(silent).toEqual([{ level: "notice", data: "by hand" }])
    }))

  it("maps every Effect log level", () => {
    expect(LogLevel.allLevels.map(McpLogger.levelOf)).toEqual([
      undefined,
      "debug",
      "debug",
      "info",
      "warning",
      "error",
      "critical",
      undefined
    ])
  })
})
