/**
 * The end-to-end scenario suite: the same scenarios, against the one scenario server, over every
 * transport and every revision the transport supports. A transport's test file gives a client
 * Layer per revision; the suite checks what a user of that client sees.
 */
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpError, Revision } from "@effect-mcp/schema"
import { describe, expect, layer } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

/** One way of connecting to the scenario server: a client Layer for a pinned revision (or none: negotiate). */
export interface Target {
  readonly label: string
  readonly revisions: ReadonlyArray<Revision.Revision | undefined>
  readonly client: (
    options: McpClient.Options
  ) => Layer.Layer<
    McpClient.McpClient,
    unknown,
    ClientHandlers.ElicitationHandler | ClientHandlers.SamplingHandler | ClientHandlers.RootsProvider
  >
}

/** The client's handlers for server→client requests: the user answers Ada, the model summarizes, two roots. */
export const handlers = Layer.mergeAll(
  ClientHandlers.elicitation({ elicit: () => Effect.succeed({ action: "accept", content: { name: "Ada" } }) }),
  ClientHandlers.sampling({
    createMessage: (params) =>
      Effect.succeed({
        role: "assistant",
        model: "scenario-model",
        content: {
          type: "text",
          text: `a summary of «${(params.messages[0]?.content as { readonly text?: string }).text ?? ""}»`
        }
      })
  }),
  ClientHandlers.roots({
    roots: Effect.succeed([{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b", name: "b" }])
  })
)

const text = (result: { readonly content: ReadonlyArray<unknown> }): string =>
  (result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>)
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("")

const since = (revision: Revision.Revision, first: Revision.Revision) =>
  Revision.all.indexOf(revision) >= Revision.all.indexOf(first)

/** Waits (polling, up to 10 s) until `check` holds, and returns the value that passed. */
const eventually = <A, E>(effect: Effect.Effect<A, E>, check: (a: A) => boolean) =>
  effect.pipe(
    Effect.filterOrFail(check, () => "not yet" as const),
    Effect.retry({ schedule: Schedule.spaced("25 millis"), while: (e) => e === "not yet" }),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("condition not reached in 10 s") })
  )

/**
 * Starts collecting `n` elements of a stream in the background, and returns once its fiber waits (for a stream of
 * notifications: once it is subscribed, so nothing sent after this is missed); the returned effect joins them.
 */
const collecting = <A, E>(stream: Stream.Stream<A, E>, n: number) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(Stream.runCollect(Stream.take(stream, n)))
    yield* Effect.repeat(Fiber.status(fiber), { until: (status) => !FiberStatus.isRunning(status) })
    return Effect.map(Fiber.join(fiber), Chunk.toReadonlyArray).pipe(Effect.timeout("10 seconds"))
  })

/** Runs every scenario over a target, once per revision. */
export const run = (target: Target): void => {
  for (const pinned of target.revisions) {
    const label = pinned === undefined ? "unpinned (negotiates 2026-07-28)" : `pinned to ${pinned}`
    const options: McpClient.Options = {
      name: "scenario-client",
      version: "1.0.0",
      ...(pinned === undefined ? {} : { revision: pinned })
    }
    const expected: Revision.Revision = pinned ?? Revision.latest
    const clientLayer = target.client(options).pipe(Layer.provide(handlers))

    describe(`${target.label}, ${label}`, () => {
      layer(clientLayer, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
        it.effect("connects: revision, server info, instructions, capabilities", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            expect(client.revision).toBe(expected)
            expect(client.stateless).toBe(Revision.isStateless(expected))
            expect(client.serverInfo.name).toBe("effect-mcp-scenarios")
            expect(client.instructions).toBe("The effect-mcp end-to-end scenario server.")
            expect(client.serverCapabilities.tools).toBeDefined()
            expect(client.serverCapabilities.resources).toBeDefined()
            expect(client.serverCapabilities.prompts).toBeDefined()
            if (!Revision.isStateless(expected)) yield* client.ping()
          }))

        it.effect("tools: list, call, structured output, typed failure, unknown tool", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const names = (yield* client.listTools()).map((t) => t.name)
            expect(names).toEqual(expect.arrayContaining(["echo", "add", "count", "wait", "fail", "long_job"]))
            expect(text(yield* client.callTool("echo", { text: "héllo, wörld ✓" }))).toBe("héllo, wörld ✓")
            const sum = yield* client.callTool("add", { a: 2, b: 3 })
            if (since(expected, "2025-06-18")) expect(sum.structuredContent).toEqual({ sum: 5 })
            expect(JSON.parse(text(sum))).toEqual({ sum: 5 })
            const failed = yield* client.callTool("fail", { reason: "on purpose" })
            expect(failed.isError).toBe(true)
            expect(text(failed)).toBe("failed: on purpose")
            const unknown = yield* Effect.either(client.callTool("no_such_tool", {}))
            expect(Either.isLeft(unknown) && unknown.left).toBeInstanceOf(McpError.InvalidParams)
            // Invalid arguments: a tool error the model can read from 2025-11-25 on, -32602 before.
            const badArgs = yield* Effect.either(client.callTool("add", { a: "two" }))
            if (since(expected, "2025-11-25")) {
              expect(Either.isRight(badArgs) && badArgs.right.isError).toBe(true)
            } else {
              expect(Either.isLeft(badArgs) && badArgs.left).toBeInstanceOf(McpError.InvalidParams)
            }
          }))

        it.effect("progress: every update arrives, in order, before the result", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const events = Chunk.toReadonlyArray(yield* Stream.runCollect(client.callToolStream("count", { to: 5 })))
            const progress = events.flatMap((e) => e._tag === "Progress" ? [e.progress.progress] : [])
            expect(progress).toEqual([1, 2, 3, 4, 5])
            const last = events[events.length - 1]!
            expect(last._tag === "Result" && text(last.result)).toBe("counted to 5")
            if (since(expected, "2025-03-26")) {
              const first = events[0]!
              expect(first._tag === "Progress" && first.progress.message).toBe("step 1 of 5")
            }
          }))

        it.effect("cancellation: interrupting a call interrupts its handler; the connection goes on", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const count = Effect.map(
              client.callTool("cancellations", {}),
              (r) =>
                (r.structuredContent as { cancelled: number } | undefined)?.cancelled ?? JSON.parse(text(r)).cancelled
            )
            const before: number = yield* count
            // `wait` reports one progress update once it runs.
            const started = yield* Deferred.make<void>()
            const call = yield* Effect.fork(
              client.callTool("wait", {}, { onProgress: () => Deferred.unsafeDone(started, Exit.void) })
            )
            yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"))
            yield* Fiber.interrupt(call)
            const after = yield* eventually(count, (n: number) => n > before)
            expect(after).toBe(before + 1)
            expect(text(yield* client.callTool("echo", { text: "still here" }))).toBe("still here")
          }))

        it.effect("timeouts: a call past its timeout fails typed and is cancelled on the server", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const result = yield* Effect.either(client.callTool("wait", {}, { timeout: "100 millis" }))
            expect(Either.isLeft(result) && result.left).toBeInstanceOf(McpError.RequestTimeout)
            expect(text(yield* client.callTool("echo", { text: "after the timeout" }))).toBe("after the timeout")
          }))

        it.effect("resources: list, read text and blob, templates, completion", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const uris = (yield* client.listResources()).map((r) => r.uri)
            expect(uris).toEqual(expect.arrayContaining(["scenario://static/text", "scenario://static/blob"]))
            const textRead = yield* client.readResource("scenario://static/text")
            expect(textRead.contents).toEqual([
              { uri: "scenario://static/text", mimeType: "text/plain", text: "plain text" }
            ])
            const blob = (yield* client.readResource("scenario://static/blob")).contents[0] as { blob: string }
            expect([...Buffer.from(blob.blob, "base64")]).toEqual([0, 1, 2, 253, 254, 255])
            const templates = yield* client.listResourceTemplates()
            expect(templates.map((t) => t.uriTemplate)).toEqual(["scenario://items/{id}"])
            const item = yield* client.readResource("scenario://items/12")
            expect((item.contents[0] as { text: string }).text).toBe("item 12")
            const missing = yield* Effect.either(client.readResource("scenario://nothing/here"))
            expect(Either.isLeft(missing) && McpError.isMcpError(missing.left)).toBe(true)
            const completed = yield* client.complete({
              ref: { type: "ref/resource", uri: "scenario://items/{id}" },
              argument: { name: "id", value: "1" }
            })
            expect(completed.completion.values).toEqual(["1", "12"])
          }))

        it.effect("prompts: list, get with arguments, completion", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const prompts = yield* client.listPrompts()
            expect(prompts.map((p) => p.name)).toEqual(["greeting"])
            expect(prompts[0]!.arguments?.map((a) => [a.name, a.required])).toEqual([["name", true], ["style", false]])
            const got = yield* client.getPrompt("greeting", { name: "Ada", style: "formal" })
            expect(got.messages).toEqual([{
              role: "user",
              content: { type: "text", text: "Greet Ada in a formal way." }
            }])
            const completed = yield* client.complete({
              ref: { type: "ref/prompt", name: "greeting" },
              argument: { name: "name", value: "g" }
            })
            expect(completed.completion.values).toEqual(["Grace", "Guido"])
          }))

        it.effect("elicitation: the tool's question reaches the client's handler and its answer comes back", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const result = yield* Effect.either(client.callTool("ask_name", {}))
            if (since(expected, "2025-06-18")) {
              expect(Either.isRight(result) && text(result.right)).toBe("hello Ada")
            } else {
              // Before 2025-06-18 there is no elicitation: the call fails typed, it does not hang.
              expect(Either.isLeft(result) || result.right.isError === true).toBe(true)
            }
          }))

        it.effect("sampling: the tool's request reaches the client's model and its message comes back", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const result = yield* client.callTool("summarize", { text: "a long story" })
            expect(text(result)).toBe("model scenario-model said: a summary of «Summarize: a long story»")
          }))

        it.effect("roots: the tool lists the client's roots", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            expect(text(yield* client.callTool("roots", {}))).toBe("file:///work/a file:///work/b")
          }))

        it.effect("logging: messages at or above the level arrive, those below do not", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            yield* client.setLoggingLevel("info")
            const messages = yield* collecting(client.logMessages, 1)
            expect(text(yield* client.callTool("log", { level: "debug", message: "too quiet" }))).toBe("logged")
            expect(text(yield* client.callTool("log", { level: "warning", message: "heard" }))).toBe("logged")
            const got = yield* messages
            expect(got).toEqual([{ level: "warning", logger: "scenarios", data: { message: "heard" } }])
          }))

        it.effect("list changes: adding a tool tells the client, and the new tool is callable", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const name = `added_${Math.random().toString(36).slice(2, 8)}`
            if (Revision.isStateless(expected)) {
              const acked = yield* Deferred.make<void>()
              const notes = yield* client.listen({ toolsListChanged: true }).pipe(
                Stream.tap((n) =>
                  n.method === "notifications/subscriptions/acknowledged"
                    ? Deferred.succeed(acked, undefined)
                    : Effect.void
                ),
                (s) => collecting(s, 2)
              )
              yield* Deferred.await(acked)
              yield* client.callTool("add_tool", { name })
              expect((yield* notes).map((n) => n.method)).toEqual([
                "notifications/subscriptions/acknowledged",
                "notifications/tools/list_changed"
              ])
            } else {
              const changed = yield* collecting(client.toolListChanged, 1)
              yield* client.callTool("add_tool", { name })
              expect(yield* changed).toHaveLength(1)
            }
            const names = yield* eventually(
              Effect.map(client.listTools(), (tools) => tools.map((t) => t.name)),
              (names) => names.includes(name)
            )
            expect(names).toContain(name)
            expect(text(yield* client.callTool(name, {}))).toBe(`I am ${name}`)
          }))

        it.effect("resource subscriptions: a change of a subscribed resource is announced", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const uri = "scenario://watched"
            if (Revision.isStateless(expected)) {
              const acked = yield* Deferred.make<void>()
              const notes = yield* client.listen({ resourceSubscriptions: [uri] }).pipe(
                Stream.tap((n) =>
                  n.method === "notifications/subscriptions/acknowledged"
                    ? Deferred.succeed(acked, undefined)
                    : Effect.void
                ),
                (s) => collecting(s, 2)
              )
              yield* Deferred.await(acked)
              const touched = text(yield* client.callTool("touch", {}))
              const got = yield* notes
              expect(got[1]).toMatchObject({ method: "notifications/resources/updated", params: { uri } })
              expect((yield* client.readResource(uri)).contents[0]).toMatchObject({ text: touched })
            } else {
              yield* client.subscribe(uri)
              const updated = yield* collecting(client.resourceUpdated, 1)
              const touched = text(yield* client.callTool("touch", {}))
              expect(yield* updated).toEqual([uri])
              expect((yield* client.readResource(uri)).contents[0]).toMatchObject({ text: touched })
              yield* client.unsubscribe(uri)
            }
          }))

        if (pinned === undefined || pinned === "2025-11-25") {
          it.effect(
            "load: 1,000 calls with 64 in flight, each answered with its own result",
            () =>
              Effect.gen(function*() {
                const client = yield* McpClient.McpClient
                const answers = yield* Effect.forEach(
                  Array.from({ length: 1_000 }, (_, i) => i),
                  (i) => Effect.map(client.callTool("echo", { text: `call ${i}` }), text),
                  { concurrency: 64 }
                )
                expect(answers).toEqual(Array.from({ length: 1_000 }, (_, i) => `call ${i}`))
              }),
            { timeout: 120_000 }
          )
        }

        it.effect("tasks: a long call runs as a task and its result is fetched later", () =>
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            if (!since(expected, "2025-11-25")) {
              // No tasks before 2025-11-25: the same tool answers a plain call.
              expect(text(yield* client.callTool("long_job", { ms: 20 }))).toBe("job done after 20 ms")
              return
            }
            const handle = yield* client.callToolAsTask("long_job", { ms: 150 })
            expect(handle.created.status).toBe("working")
            const result = yield* handle.result
            expect(text(result)).toBe("job done after 150 ms")
            expect((yield* handle.status).status).toBe("completed")
            const cancelled = yield* client.callToolAsTask("long_job", { ms: 60_000 })
            expect((yield* cancelled.cancel).status).toBe("cancelled")
          }))
      })
    })
  }
}
