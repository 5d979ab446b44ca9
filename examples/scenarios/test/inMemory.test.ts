import { InMemoryTransport, McpClient, McpServer, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scenarios from "../src/Scenarios.js"
import * as Suite from "./suite.js"

// A fresh scenario server per client, served in this process over the in-memory transport.
Suite.run({
  label: "in-memory",
  revisions: [undefined, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
  client: (options) =>
    Layer.unwrapScoped(
      Effect.gen(function*() {
        const pair = yield* InMemoryTransport.makePair
        const server = yield* Layer.build(Scenarios.make())
        yield* McpServer.serve.pipe(
          Effect.provide(server),
          Effect.provideService(Transport.Transport, pair.server),
          Effect.forkScoped
        )
        return McpClient.layer(options).pipe(Layer.provide(Layer.succeed(Transport.Transport, pair.client)))
      })
    )
})
