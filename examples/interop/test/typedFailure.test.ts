/**
 * A typed tool failure as the official clients receive it: the @modelcontextprotocol/sdk 1.32 Client and the
 * @modelcontextprotocol/client 2.4 Client, over stdio and Streamable HTTP, call examples/everything's `divide` (an
 * output schema and a failure schema) with a zero divisor. Each must answer `isError: true` with the failure's
 * text, throw no schema error, and hold no `structuredContent` that breaks the listed outputSchema (checked with
 * the SDK's own Ajv validator, the one its Client uses).
 */
import { expect, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import * as Effect from "effect/Effect"
import * as Helpers from "./helpers.js"

type TransportKind = "stdio" | "streamable-http"

/** What the tests read of a tool call's result and of a listed tool. */
interface Result {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean
  readonly structuredContent?: Record<string, unknown>
}

/** One official client, connected: it lists the tools (so it knows divide's outputSchema), then calls divide. */
interface Peer {
  readonly outputSchema: () => Promise<Record<string, unknown> | undefined>
  readonly divide: (a: number, b: number) => Promise<Result>
  readonly close: () => Promise<void>
}

const args = (transport: TransportKind) => [Helpers.ourEverything, transport === "stdio" ? "--stdio" : "--http"]

/** The URL of an everything server over HTTP for the scope, or nothing for stdio (the client spawns it). */
const urlFor = (transport: TransportKind) =>
  transport === "stdio" ? Effect.succeed(undefined) : Effect.map(Helpers.listening(args(transport)), (l) => l.url)

const clients: Record<string, (transport: TransportKind, url: string | undefined) => Promise<Peer>> = {
  [`@modelcontextprotocol/sdk ${Helpers.versions.sdk} Client`]: async (transport, url) => {
    const client = new V1Client({ name: "sdk1-typed-failure", version: Helpers.versions.sdk })
    await client.connect(
      url === undefined
        ? new V1Stdio({ command: Helpers.node, args: args(transport), env: Helpers.childEnv, stderr: "ignore" })
        : new V1Http(new URL(url))
    )
    return {
      outputSchema: async () => (await client.listTools()).tools.find((t) => t.name === "divide")?.outputSchema,
      divide: async (a, b) => (await client.callTool({ name: "divide", arguments: { a, b } })) as unknown as Result,
      close: () => client.close()
    }
  },
  [`@modelcontextprotocol/client ${Helpers.versions.v2} Client`]: async (transport, url) => {
    const client = new V2Client({ name: "sdk2-typed-failure", version: Helpers.versions.v2 }, {
      versionNegotiation: { mode: "auto" }
    })
    await client.connect(
      url === undefined
        ? new V2Stdio({ command: Helpers.node, args: args(transport), env: Helpers.childEnv, stderr: "ignore" })
        : new V2Http(new URL(url))
    )
    return {
      outputSchema: async () => (await client.listTools()).tools.find((t) => t.name === "divide")?.outputSchema,
      divide: async (a, b) => (await client.callTool({ name: "divide", arguments: { a, b } })) as unknown as Result,
      close: () => client.close()
    }
  }
}

const validator = new AjvJsonSchemaValidator()

for (const [name, connect] of Object.entries(clients)) {
  for (const transport of ["stdio", "streamable-http"] as const) {
    it.scoped(
      `${name} over ${transport}: divide by zero is an isError result with the failure's text`,
      () =>
        Effect.gen(function*() {
          const url = yield* urlFor(transport)
          const peer = yield* Effect.acquireRelease(
            Effect.promise(() => connect(transport, url)),
            (p) => Effect.promise(() => p.close())
          )
          const schema = yield* Effect.promise(() => peer.outputSchema())
          expect(schema).toMatchObject({ type: "object", required: ["quotient"] })
          const conforms = validator.getValidator(schema as never)

          const ok = yield* Effect.promise(() => peer.divide(7, 2))
          expect(ok.structuredContent).toEqual({ quotient: 3.5 })

          // The client's own check must not throw; what it hands over must obey the listed outputSchema.
          const failed = yield* Effect.tryPromise(() => peer.divide(7, 0))
          expect(failed.isError).toBe(true)
          expect(failed.content.map((c) => c.text ?? "").join("\n")).toContain("cannot divide 7 by zero")
          if (failed.structuredContent !== undefined) {
            expect(conforms(failed.structuredContent).errorMessage).toBeUndefined()
          }
        }),
      { timeout: 60_000 }
    )
  }
}
