/**
 * The client under test for the MCP conformance suite's client scenarios, built with McpClient over
 * Streamable HTTP: `node dist/main.js <server-url>`, the scenario in `MCP_CONFORMANCE_SCENARIO` (and its
 * context, when it has one, in `MCP_CONFORMANCE_CONTEXT`). It connects, does what the scenario asks of a
 * client, and exits 0; a failure is printed on stderr and exits 1.
 */
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** An elicitation answer that accepts the form with each field's default, as SEP-1034 asks of clients. */
const withDefaults = ClientHandlers.elicitation({
  elicit: (params) =>
    Effect.succeed({
      action: "accept" as const,
      content: "requestedSchema" in params
        ? Object.fromEntries(
          Object.entries(params.requestedSchema.properties).flatMap(([key, property]) =>
            "default" in property && property.default !== undefined ? [[key, property.default]] : []
          )
        )
        : {}
    })
})

/** What each scenario asks the client to do once connected. */
const scenarios: Record<string, Effect.Effect<void, unknown, McpClient.McpClient>> = {
  initialize: Effect.void,
  tools_call: Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    for (const tool of yield* client.listTools()) {
      const result = yield* client.callTool(tool.name, tool.name === "add_numbers" ? { a: 5, b: 3 } : {})
      yield* Console.error(`${tool.name}: ${JSON.stringify(result.content)}`)
    }
  }),
  "elicitation-sep1034-client-defaults": Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    for (const tool of yield* client.listTools()) {
      yield* Console.error(`${tool.name}: ${JSON.stringify((yield* client.callTool(tool.name, {})).content)}`)
    }
  }),
  "sse-retry": Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    for (const tool of yield* client.listTools()) {
      yield* Console.error(`${tool.name}: ${JSON.stringify((yield* client.callTool(tool.name, {})).content)}`)
    }
  })
}

const url = process.argv[2]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize"
const run = scenarios[scenario]

if (url === undefined || run === undefined) {
  process.stderr.write(
    url === undefined
      ? "usage: main.js <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)\n"
      : `scenario ${scenario} is not supported by this client (supported: ${Object.keys(scenarios).join(", ")})\n`
  )
  process.exitCode = 2
} else {
  run.pipe(
    Effect.provide(
      McpClient.layer({ name: "effect-mcp-conformance-client", version: "0.1.0" }).pipe(
        Layer.provide(McpHttpClient.layer({ url })),
        Layer.provide(Layer.mergeAll(NodeHttpClient.layerUndici, withDefaults))
      )
    ),
    Effect.tapErrorCause((cause) => Console.error(`conformance client (${scenario}) failed:`, cause)),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
