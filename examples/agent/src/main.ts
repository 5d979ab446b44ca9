/**
 * The agent as a program: `node dist/main.js [question]`. A host starts two MCP servers over stdio (the everything
 * server, and the almanac: an `@effect/ai` Toolkit served by `ToolkitServer`), the model the environment configures
 * (Model.ts; the scripted stand-in when none is) answers the question by calling their tools, one line per step on
 * stdout. Exit code 0 when it answered, 1 otherwise.
 */
import { McpHost } from "@effect-mcp/host"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Agent from "./Agent.js"
import * as Model from "./Model.js"
import * as Servers from "./Servers.js"

const question = process.argv.slice(2).join(" ").trim() ||
  "How many hours of the day on Mars are there for each of its moons?"

const program = Effect.gen(function*() {
  const model = yield* Model.fromEnvironment
  yield* Console.log(`model: ${model.description}`)
  yield* Console.log(`question: ${question}`)
  const servers = yield* McpHost.McpHost
  // Waits until both servers are up (a starting server is waited for), so the model sees every tool.
  yield* Effect.forEach(servers.servers, servers.client, { discard: true })
  const tools = (yield* servers.catalogue).tools
  yield* Console.log(`tools: ${tools.length} from ${servers.servers.join(" and ")}`)
  yield* Agent.answer(question, { onStep: (step) => Console.log(Agent.describe(step)) }).pipe(
    Effect.provide(model.layer)
  )
})

program.pipe(
  Effect.provide(Servers.host),
  Effect.tapErrorCause((cause) => Console.error(`the agent failed: ${cause}`)),
  NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
