// Negotiation over stdio with real servers that mishandle the `server/discover` probe (issue 28, defect 8): a
// hand-written server that answers it with another id or never answers it, and a real @effect/ai 0.37 McpServer
// (which answers it with id -32603). With a 60 s request timeout, connecting takes the probe's bound, not a minute,
// and a second connection to the same server skips the probe.
import { McpClient, Transport } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"

const hostile = fileURLToPath(new URL("./fixtures/hostileDiscover.mjs", import.meta.url))
const effectAi = fileURLToPath(new URL("./fixtures/effectAiServer.mjs", import.meta.url))

/** Spawns `args` under node and connects; returns the client, the methods it sent and how long connecting took. */
const connect = (
  args: ReadonlyArray<string>,
  memory: McpClient.NegotiationMemoryService,
  options: Partial<McpClient.Options> = {}
) =>
  Effect.gen(function*() {
    const started = Date.now()
    const stdio = yield* StdioClientTransport.make({ command: process.execPath, args, stderrLevel: "debug" })
    const sent: Array<string> = []
    const transport: Transport.TransportService = {
      ...stdio,
      send: (message, sendOptions) => {
        for (const m of Array.isArray(message) ? message : [message]) sent.push("method" in m ? m.method : "(answer)")
        return stdio.send(message, sendOptions)
      }
    }
    const client = yield* McpClient.make({
      name: "negotiation-test",
      version: "1.0.0",
      // A request timeout of a minute: a connection that waited for it could not pass.
      requestTimeout: "60 seconds",
      server: `stdio: node ${args.join(" ")}`,
      ...options
    }).pipe(
      Effect.provideService(Transport.Transport, transport),
      Effect.provideService(McpClient.NegotiationMemory, memory)
    )
    return { client, sent, ms: Date.now() - started }
  })

describe("negotiation over stdio with servers that mishandle server/discover", () => {
  for (const mode of ["wrong-id", "silent"] as const) {
    it.scopedLive(
      `a server that answers the probe ${mode === "wrong-id" ? "with another id" : "never"}`,
      () =>
        Effect.gen(function*() {
          const memory = McpClient.makeNegotiationMemory()
          const first = yield* connect([hostile, mode], memory, { probeTimeout: "1 second" })
          expect(first.client.revision).toBe("2025-06-18")
          expect(first.client.instructions).toBe("probed")
          expect(first.sent.slice(0, 3)).toEqual(["server/discover", "notifications/cancelled", "initialize"])
          expect(first.ms).toBeLessThan(15_000)
          expect(yield* first.client.listTools()).toEqual([])

          const second = yield* connect([hostile, mode], memory, { probeTimeout: "1 second" })
          expect(second.client.instructions).toBe("not probed")
          expect(second.sent[0]).toBe("initialize")
          expect(second.sent).not.toContain("server/discover")
        }),
      50_000
    )
  }

  it.scopedLive("a real @effect/ai 0.37 McpServer, with the default probe bound", () =>
    Effect.gen(function*() {
      const memory = McpClient.makeNegotiationMemory()
      const first = yield* connect([effectAi], memory)
      expect(first.client.serverInfo.name).toBe("effect-ai-fixture")
      expect(first.client.revision).toBe("2025-06-18")
      expect(first.sent.slice(0, 3)).toEqual(["server/discover", "notifications/cancelled", "initialize"])
      expect(first.ms).toBeLessThan(30_000)
      const prompt = yield* first.client.getPrompt("greeting", { who: "Ada" })
      expect(JSON.stringify(prompt.messages)).toContain("Say hello to Ada")

      const second = yield* connect([effectAi], memory)
      expect(second.sent[0]).toBe("initialize")
      expect(second.sent).not.toContain("server/discover")
      expect((yield* second.client.listPrompts()).map((p) => p.name)).toEqual(["greeting"])
    }), 50_000)
})
