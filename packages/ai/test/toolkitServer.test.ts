/**
 * ToolkitServer: an @effect/ai Toolkit served as MCP tools, called by our client in memory. The listed schemas are
 * the ones `McpServer.tool` generates for the same Effect Schemas; values travel encoded (a `Date` as its string),
 * typed failures come back decodable, a handler that depends on RequestContext reports progress.
 */
import { ToolkitServer } from "@effect-mcp/ai"
import { McpClient, McpServer, McpTest, RequestContext, Tool } from "@effect-mcp/core"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { describe, expect, it, layer } from "@effect/vitest"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

class UnknownCity extends Schema.TaggedError<UnknownCity>()("UnknownCity", { city: Schema.String }) {}

const ForecastInput = {
  city: Schema.String.annotations({ description: "The city" }),
  day: Schema.Date
}
const Forecast = Schema.Struct({ city: Schema.String, high: Schema.Number, issued: Schema.Date })

const GetForecast = AiTool.make("get_forecast", {
  description: "The forecast of a city for a day",
  parameters: ForecastInput,
  success: Forecast,
  failure: UnknownCity
})
  .annotate(AiTool.Title, "Forecast")
  .annotate(AiTool.Readonly, true)
  .annotate(AiTool.Destructive, false)

const Shout = AiTool.make("shout", {
  parameters: { text: Schema.String },
  success: Schema.String,
  failure: Schema.Struct({ reason: Schema.String }),
  failureMode: "return"
})

const Count = AiTool.make("count", {
  description: "Counts to `to`, reporting progress",
  parameters: { to: Schema.Int },
  success: Schema.Number,
  dependencies: [RequestContext.RequestContext]
})

const Ping = AiTool.make("ping")

const Hang = AiTool.make("hang", { description: "Never ends" })

/** That `hang` started, and that its handler was interrupted. */
const hanging = { started: Effect.runSync(Deferred.make<void>()), interrupted: Effect.runSync(Deferred.make<void>()) }

const Kit = Toolkit.make(GetForecast, Shout, Count, Ping, Hang)

const Handlers = Kit.toLayer({
  get_forecast: ({ city, day }) =>
    city === "Atlantis"
      ? Effect.fail(new UnknownCity({ city }))
      : Effect.succeed({ city, high: day.getUTCDate(), issued: new Date(0) }),
  shout: ({ text }) => text === "" ? Effect.fail({ reason: "nothing to shout" }) : Effect.succeed(text.toUpperCase()),
  count: ({ to }) =>
    Effect.gen(function*() {
      for (let i = 1; i <= to; i++) yield* RequestContext.progress(i, to)
      return to
    }),
  ping: () => Effect.void,
  hang: () =>
    Deferred.succeed(hanging.started, undefined).pipe(
      Effect.zipRight(Effect.never),
      Effect.onInterrupt(() => Deferred.succeed(hanging.interrupted, undefined))
    )
})

const Server = ToolkitServer.layer(Kit).pipe(
  Layer.provide(Handlers),
  Layer.provideMerge(McpServer.layer({ name: "toolkit", version: "1.0.0" }))
)

/** What `McpServer.tool` lists for a definition with these schemas: the reference the served tools must match. */
const descriptorOf = <I, II, O, OI>(input: Schema.Schema<I, II>, output?: Schema.Schema<O, OI>) =>
  output === undefined
    ? Tool.make({ name: "reference", input, handler: () => Effect.succeed("") }, Context.empty()).descriptor
    : Tool.make({ name: "reference", input, output, handler: () => Effect.die("unused") }, Context.empty()).descriptor

const callOf = (name: string, args: Record<string, unknown>) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.callTool(name, args))

layer(McpTest.layer(Server))("ToolkitServer", (it) => {
  it.effect("lists each tool with the schemas, description, title and hints of its definition", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual(["count", "get_forecast", "hang", "ping", "shout"])
      const forecast = tools.find((t) => t.name === "get_forecast")!
      const reference = descriptorOf(Schema.Struct(ForecastInput), Forecast)
      expect(forecast.inputSchema).toEqual(reference.inputSchema)
      expect(forecast.outputSchema).toEqual(reference.outputSchema)
      expect(forecast.inputSchema.properties).toMatchObject({ city: { type: "string", description: "The city" } })
      expect(forecast.description).toBe("The forecast of a city for a day")
      expect(forecast.title).toBe("Forecast")
      expect(forecast.annotations).toMatchObject({ title: "Forecast", readOnlyHint: true, destructiveHint: false })
      const shout = tools.find((t) => t.name === "shout")!
      expect(shout.inputSchema).toEqual(descriptorOf(Schema.Struct({ text: Schema.String })).inputSchema)
      expect(shout.outputSchema).toBeUndefined()
      expect(tools.find((t) => t.name === "ping")!.inputSchema.type).toBe("object")
    }))

  it.effect("lists schemas that compile under Ajv's 2020-12 mode and accept the values the tools take and give", () =>
    Effect.gen(function*() {
      const ajv = new Ajv2020.default({ strict: true, allErrors: true })
      addFormats.default(ajv)
      const tools = yield* (yield* McpClient.McpClient).listTools()
      for (const tool of tools) {
        ajv.compile(tool.inputSchema)
        if (tool.outputSchema !== undefined) ajv.compile(tool.outputSchema)
      }
      const forecast = tools.find((t) => t.name === "get_forecast")!
      const input = ajv.compile(forecast.inputSchema)
      expect(input({ city: "Paris", day: "2026-07-28T00:00:00.000Z" })).toBe(true)
      expect(input({ city: 42 })).toBe(false)
      const output = ajv.compile(forecast.outputSchema!)
      expect(output({ city: "Paris", high: 28, issued: "1970-01-01T00:00:00.000Z" })).toBe(true)
      expect(output({ city: "Paris" })).toBe(false)
    }))

  it.effect("decodes the arguments and returns the encoded success as structuredContent", () =>
    Effect.gen(function*() {
      const result = yield* callOf("get_forecast", { city: "Paris", day: "2026-07-28T00:00:00.000Z" })
      expect(result.isError).toBeUndefined()
      expect(result.structuredContent).toEqual({ city: "Paris", high: 28, issued: "1970-01-01T00:00:00.000Z" })
    }))

  it.effect("returns a success that is not an object as text, and void as no content", () =>
    Effect.gen(function*() {
      const shouted = yield* callOf("shout", { text: "hello" })
      expect(shouted.content).toEqual([{ type: "text", text: "HELLO" }])
      expect(shouted.structuredContent).toBeUndefined()
      expect((yield* callOf("ping", {})).content).toEqual([])
    }))

  it.effect("returns a typed failure as an isError result that decodes with the failure schema", () =>
    Effect.gen(function*() {
      const result = yield* callOf("get_forecast", { city: "Atlantis", day: "2026-07-28T00:00:00.000Z" })
      expect(result.isError).toBe(true)
      expect(Tool.decodeFailure(UnknownCity)(result)).toEqual(Option.some(new UnknownCity({ city: "Atlantis" })))
      const returned = yield* callOf("shout", { text: "" })
      expect(returned.isError).toBe(true)
      expect(Tool.decodeFailure(Shout.failureSchema)(returned)).toEqual(Option.some({ reason: "nothing to shout" }))
    }))

  it.effect("answers arguments its parameters schema rejects with an isError result naming them", () =>
    Effect.gen(function*() {
      const result = yield* callOf("get_forecast", { city: 42, day: "not a date" })
      expect(result.isError).toBe(true)
      const text = result.content[0]?.type === "text" ? result.content[0].text : ""
      expect(text).toMatch(/Invalid arguments for tool get_forecast/)
      expect(text).toMatch(/city/)
    }))

  it.effect("gives a handler that depends on RequestContext the request's progress", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const events = yield* Stream.runCollect(client.callToolStream("count", { to: 3 }))
      const progress = [...events].flatMap((e) => (e._tag === "Progress" ? [e.progress.progress] : []))
      expect(progress).toEqual([1, 2, 3])
      const last = [...events].at(-1)
      expect(last?._tag === "Result" ? last.result.content : undefined).toEqual([{ type: "text", text: "3" }])
    }))

  it.effect("interrupts the toolkit's handler when the client cancels the call", () =>
    Effect.gen(function*() {
      const call = yield* Effect.fork(callOf("hang", {}))
      yield* Deferred.await(hanging.started)
      yield* Fiber.interrupt(call)
      // Awaited, not polled: if the cancellation never reached the handler, this test times out.
      yield* Deferred.await(hanging.interrupted)
      expect((yield* McpClient.McpClient).stats().pending).toBe(0)
    }))
})

describe("ToolkitServer, registration", () => {
  it.scoped("adds the tools while the Layer is alive and removes them when it is released", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({ name: "s", version: "1" })
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(ToolkitServer.layer(Kit).pipe(Layer.provide(Handlers)), scope).pipe(
        Effect.provideService(McpServer.McpServer, server)
      )
      expect(server.tools().map((t) => t.descriptor.name).sort()).toEqual([
        "count",
        "get_forecast",
        "hang",
        "ping",
        "shout"
      ])
      yield* Scope.close(scope, Exit.void)
      expect(server.tools()).toEqual([])
    }))
})
