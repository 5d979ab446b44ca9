/**
 * The client under test for the MCP conformance suite's client scenarios, built with McpClient over
 * Streamable HTTP: `node dist/main.js <server-url>`, the scenario in `MCP_CONFORMANCE_SCENARIO` (and its
 * context, when it has one, in `MCP_CONFORMANCE_CONTEXT`). It connects, does what the scenario asks of a
 * client, and exits 0; a failure is printed on stderr and exits 1. The `auth/*` scenarios connect through
 * `OAuthClient` with the headless interactive step (the suite's authorization server asks the user nothing), and
 * the identity the scenario's context gives: a pre-registered client, client credentials, an enterprise identity
 * assertion, or none (then the client's metadata document URL, or dynamic registration).
 */
import { InteractiveStep, OAuthClient, TokenStore } from "@effect-mcp/auth"
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpHttpClient } from "@effect-mcp/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

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

/** What an auth scenario asks: list the tools and call the suite's test tool. */
const authorized = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools()
  if (tools.some((tool) => tool.name === "test-tool")) yield* client.callTool("test-tool", {})
})

/** The URL of this client's metadata document, which the suite's CIMD scenario expects as the client id. */
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/** The context of the scenarios that give the client an identity. */
const Context = Schema.Struct({
  client_id: Schema.optional(Schema.String),
  client_secret: Schema.optional(Schema.String),
  private_key_pem: Schema.optional(Schema.String),
  signing_algorithm: Schema.optional(Schema.String),
  idp_client_id: Schema.optional(Schema.String),
  idp_id_token: Schema.optional(Schema.String),
  idp_issuer: Schema.optional(Schema.String),
  idp_token_endpoint: Schema.optional(Schema.String)
})

/** The OAuth options of an auth scenario, from its context. */
const authOptions = (name: string, raw: string | undefined): OAuthClient.Options => {
  const context = raw === undefined ? {} : Schema.decodeUnknownSync(Schema.parseJson(Context))(raw)
  const base = { clientName: "effect-mcp-conformance-client", clientMetadataUrl }
  if (context.client_id === undefined) return base
  if (context.idp_token_endpoint !== undefined && context.idp_id_token !== undefined) {
    return {
      ...base,
      identityAssertion: {
        idpTokenEndpoint: context.idp_token_endpoint,
        idpIssuer: context.idp_issuer,
        idToken: context.idp_id_token,
        idpClientId: context.idp_client_id ?? context.client_id,
        clientId: context.client_id,
        clientSecret: context.client_secret
      }
    }
  }
  if (name.startsWith("auth/client-credentials")) {
    return {
      ...base,
      clientCredentials: {
        clientId: context.client_id,
        clientSecret: context.client_secret,
        signingKey: context.private_key_pem === undefined
          ? undefined
          : { pem: context.private_key_pem, algorithm: context.signing_algorithm ?? "ES256" }
      }
    }
  }
  return { ...base, client: { clientId: context.client_id, clientSecret: context.client_secret } }
}

const url = process.argv[2]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize"
const isAuth = scenario.startsWith("auth/")
const run = isAuth ? authorized : scenarios[scenario]

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
        Layer.provide(
          isAuth
            ? OAuthClient.layerNodeHttp({ url }, authOptions(scenario, process.env.MCP_CONFORMANCE_CONTEXT)).pipe(
              Layer.provide(Layer.mergeAll(TokenStore.layerMemory, InteractiveStep.layerHeadless()))
            )
            : McpHttpClient.layer({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici))
        ),
        Layer.provide(withDefaults)
      )
    ),
    Effect.tapErrorCause((cause) => Console.error(`conformance client (${scenario}) failed:`, cause)),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
