/**
 * hello: a server with one tool that reports progress, and a client that calls it, linked in
 * memory. Run it with `npm run demo`.
 */
import { McpClient, McpServer, McpTest, RequestContext } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const say = (line: string) => Effect.sync(() => process.stdout.write(`${line}\n`))

/** A tool that greets someone, in a few steps, reporting progress as it goes. */
const Greet = McpServer.tool({
  name: "greet",
  description: "Greets someone, slowly",
  input: Schema.Struct({ name: Schema.String }),
  output: Schema.Struct({ greeting: Schema.String }),
  handler: ({ name }) =>
    Effect.gen(function*() {
      for (let step = 1; step <= 3; step++) {
        yield* Effect.sleep("100 millis")
        yield* RequestContext.progress(step, 3, `step ${step} of 3`)
      }
      return { greeting: `Hello, ${name}!` }
    })
})

const Server = Greet.pipe(Layer.provideMerge(McpServer.layer({ name: "hello", version: "1.0.0" })))

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* say(`connected to ${client.serverInfo.name} ${client.serverInfo.version} over revision ${client.revision}`)
  const tools = yield* client.listTools()
  yield* say(`tools: ${tools.map((t) => `${t.name} (${t.description})`).join(", ")}`)
  yield* client.callToolStream("greet", { name: "world" }).pipe(
    Stream.runForEach((event) =>
      event._tag === "Progress"
        ? say(`  progress ${event.progress.progress}/${event.progress.total}: ${event.progress.message}`)
        : say(`result: ${JSON.stringify(event.result.structuredContent)}`)
    )
  )
})

program.pipe(Effect.provide(McpTest.layer(Server)), Effect.scoped, Effect.runPromise).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
