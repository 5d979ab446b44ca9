/**
 * The scenario server: one definition whose tools, resources and prompts exercise every feature
 * the end-to-end scenario suite checks (progress, cancellation, typed tool failures, structured
 * output, elicitation, sampling, roots, logging, list changes, resource updates, tasks,
 * completion). The same Layer is served in memory, over stdio and over HTTP.
 */
import { McpServer, RequestContext, Tool } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"

/** How the scenario server describes itself. */
export const info: McpServer.Options = {
  name: "effect-mcp-scenarios",
  version: "0.1.0",
  instructions: "The effect-mcp end-to-end scenario server.",
  tasks: { pollInterval: "20 millis" }
}

/** The URI of the resource that `touch` changes. */
export const watchedUri = "scenario://watched"

/** The names the `greeting` prompt completes. */
export const names: ReadonlyArray<string> = ["Ada", "Alan", "Grace", "Guido"]

const tools = (state: { readonly cancelled: Ref.Ref<number>; readonly version: Ref.Ref<number> }) =>
  Layer.mergeAll(
    McpServer.tool({
      name: "echo",
      description: "Returns its text.",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(text)
    }),
    McpServer.tool({
      name: "add",
      description: "Adds two numbers (structured output).",
      input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
      output: Schema.Struct({ sum: Schema.Number }),
      handler: ({ a, b }) => Effect.succeed({ sum: a + b })
    }),
    McpServer.tool({
      name: "count",
      description: "Reports progress from 1 to `to`, then answers.",
      input: Schema.Struct({ to: Schema.Int, delayMs: Schema.optional(Schema.Int) }),
      handler: ({ delayMs, to }) =>
        Effect.gen(function*() {
          for (let i = 1; i <= to; i++) {
            yield* RequestContext.progress(i, to, `step ${i} of ${to}`)
            if (delayMs !== undefined) yield* Effect.sleep(delayMs)
          }
          return `counted to ${to}`
        })
    }),
    McpServer.tool({
      name: "wait",
      description:
        "Never answers (it reports one progress update when asked for them); counts the calls that were cancelled.",
      input: Schema.Struct({}),
      handler: () =>
        RequestContext.progress(0, undefined, "waiting until cancelled").pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Ref.update(state.cancelled, (n) => n + 1)),
          Effect.as("unreachable")
        )
    }),
    McpServer.tool({
      name: "cancellations",
      description: "How many `wait` calls were cancelled so far.",
      input: Schema.Struct({}),
      output: Schema.Struct({ cancelled: Schema.Int }),
      handler: () => Effect.map(Ref.get(state.cancelled), (cancelled) => ({ cancelled }))
    }),
    McpServer.tool({
      name: "fail",
      description: "Always fails as a tool (an isError result).",
      input: Schema.Struct({ reason: Schema.String }),
      handler: ({ reason }) => Effect.fail(new Tool.ToolError({ message: `failed: ${reason}` }))
    }),
    McpServer.tool({
      name: "ask_name",
      description: "Asks the user for their name (elicitation).",
      input: Schema.Struct({}),
      handler: () =>
        Effect.gen(function*() {
          const answer = yield* RequestContext.elicit({
            message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
          })
          return answer.action === "accept" ? `hello ${String(answer.content?.name)}` : `no name (${answer.action})`
        })
    }),
    McpServer.tool({
      name: "summarize",
      description: "Asks the client's model to summarize a text (sampling).",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) =>
        Effect.gen(function*() {
          const message = yield* RequestContext.sample({
            messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
            maxTokens: 100
          })
          const content = Array.isArray(message.content) ? message.content[0] : message.content
          return `model ${message.model} said: ${content?.type === "text" ? content.text : "(no text)"}`
        })
    }),
    McpServer.tool({
      name: "roots",
      description: "Lists the client's roots.",
      input: Schema.Struct({}),
      handler: () => Effect.map(RequestContext.listRoots, (r) => r.roots.map((root) => root.uri).join(" "))
    }),
    McpServer.tool({
      name: "log",
      description: "Sends a log message at the given level.",
      input: Schema.Struct({ level: Schema.Literal("debug", "info", "warning", "error"), message: Schema.String }),
      handler: ({ level, message }) => Effect.as(RequestContext.log(level, { message }, "scenarios"), "logged")
    }),
    McpServer.tool({
      name: "add_tool",
      description: "Registers a new tool (the tool list changes).",
      input: Schema.Struct({ name: Schema.String }),
      handler: ({ name }) =>
        Effect.flatMap(McpServer.McpServer, (server) =>
          server.addTool(Tool.make({
            name,
            description: "A tool added at run time.",
            input: Schema.Struct({}),
            handler: () => Effect.succeed(`I am ${name}`)
          }, Context.empty()))).pipe(Effect.as(`added ${name}`))
    }),
    McpServer.tool({
      name: "touch",
      description: `Changes ${watchedUri} (subscribers are told).`,
      input: Schema.Struct({}),
      handler: () =>
        Effect.gen(function*() {
          const version = yield* Ref.updateAndGet(state.version, (n) => n + 1)
          const server = yield* McpServer.McpServer
          yield* server.notifyResourceUpdated(watchedUri)
          return `version ${version}`
        })
    }),
    McpServer.tool({
      name: "long_job",
      description: "Sleeps, then answers (may run as a task).",
      task: "optional",
      input: Schema.Struct({ ms: Schema.Int }),
      handler: ({ ms }) => Effect.as(Effect.sleep(ms), `job done after ${ms} ms`)
    })
  )

const resources = (state: { readonly version: Ref.Ref<number> }) =>
  Layer.mergeAll(
    McpServer.resource({
      uri: "scenario://static/text",
      name: "static-text",
      mimeType: "text/plain",
      read: Effect.succeed("plain text")
    }),
    McpServer.resource({
      uri: "scenario://static/blob",
      name: "static-blob",
      mimeType: "application/octet-stream",
      read: Effect.succeed(new Uint8Array([0, 1, 2, 253, 254, 255]))
    }),
    McpServer.resource({
      uri: watchedUri,
      name: "watched",
      mimeType: "text/plain",
      read: Effect.map(Ref.get(state.version), (v) => `version ${v}`)
    }),
    McpServer.resourceTemplate({
      uriTemplate: "scenario://items/{id}",
      name: "item",
      mimeType: "text/plain",
      complete: { id: (prefix) => Effect.succeed(["1", "2", "12", "20"].filter((id) => id.startsWith(prefix))) },
      handler: ({ id }, uri) => Effect.succeed([{ uri, mimeType: "text/plain", text: `item ${id}` }])
    })
  )

const prompts = McpServer.prompt({
  name: "greeting",
  description: "Greets someone.",
  input: Schema.Struct({ name: Schema.String, style: Schema.optional(Schema.String) }),
  complete: { name: (prefix) => Effect.succeed(names.filter((n) => n.toLowerCase().startsWith(prefix.toLowerCase()))) },
  handler: ({ name, style }) => Effect.succeed(`Greet ${name}${style === undefined ? "" : ` in a ${style} way`}.`)
})

/** A fresh scenario server (its counters start at zero for every build). */
export const make = (): Layer.Layer<McpServer.McpServer> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const state = { cancelled: yield* Ref.make(0), version: yield* Ref.make(0) }
      return Layer.mergeAll(tools(state), resources(state), prompts).pipe(Layer.provideMerge(McpServer.layer(info)))
    })
  )
