// Handshake-era sessions (2025-11-25) on three everything processes (`--http --redis`) behind a round-robin proxy
// that is not sticky: every request for a session that reaches another process is relayed to the session's owner
// (found in Redis), and its answer, SSE included, streams back. When the owner dies, the client gets 404 and
// initializes again on a live process.
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { expect, layer } from "@effect/vitest"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Cluster as Running, startCluster } from "../../cluster/src/Cluster.js"

class TestCluster extends Context.Tag("test/SessionCluster")<TestCluster, Running>() {}

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> }) =>
  result.content.map((c) => c.text ?? `[${c.type}]`).join("\n")

/** Our client pinned to 2025-11-25 (a session), answering elicitations. */
const ourClient = Effect.flatMap(TestCluster, (cluster) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-sessions", version: "0.0.0", revision: "2025-11-25" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url: cluster.url })),
        Layer.provide(ClientHandlers.elicitation({
          elicit: () => Effect.succeed({ action: "accept", content: { username: "ada", email: "ada@example.com" } })
        }))
      )
    ),
    Context.get(McpClient.McpClient)
  ))

/** SDK 1.32's client (a 2025-11-25 session), closed with the scope. */
const sdkClient = Effect.flatMap(TestCluster, (cluster) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new V1Client({ name: "cluster-sdk1", version: "1.32.2" }, { capabilities: {} })
      await client.connect(new V1Http(new URL(cluster.url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  ))

const whoami = (client: McpClient.McpClientService) => Effect.map(client.callTool("cluster_whoami", {}), textOf)

layer(Layer.scoped(TestCluster, startCluster(3)), { excludeTestServices: true, timeout: "120 seconds" })(
  "2025-11-25 sessions on three processes behind a proxy that is not sticky",
  (it) => {
    it.scoped("every request of a session is answered by the process that owns it, for our client and SDK 1.32", () =>
      Effect.gen(function*() {
        const cluster = yield* TestCluster
        const client = yield* ourClient
        expect(client.stateless).toBe(false)
        const before = new Map(cluster.proxy.counts)
        const ours = yield* Effect.forEach([1, 2, 3], () => whoami(client))
        expect(new Set(ours).size).toBe(1)
        // The three calls went to three processes: two of them relayed the call to the owner.
        expect([...cluster.proxy.counts].filter(([k, n]) => n > (before.get(k) ?? 0)).length).toBe(3)
        const sdk = yield* sdkClient
        const theirs = yield* Effect.forEach(
          [1, 2, 3],
          () => Effect.promise(() => sdk.callTool({ name: "cluster_whoami", arguments: {} }))
        )
        expect(new Set(theirs.map((r) => textOf(r as never))).size).toBe(1)
        expect((yield* Effect.promise(() => sdk.listTools())).tools.map((t) => t.name)).toContain("cluster_task")
      }))

    it.scoped("a server→client request and a resumed stream cross processes to the owner", () =>
      Effect.gen(function*() {
        const client = yield* ourClient
        // The elicitation goes out on the relayed POST stream, its answer comes back through another process.
        expect(textOf(yield* client.callTool("test_elicitation", { message: "Who?" }))).toContain("ada")
        // The owner cuts the stream mid-call; the client resumes with Last-Event-ID through another process.
        expect(textOf(yield* client.callTool("test_reconnection", {}))).toMatch(/^Reconnection test completed/)
      }))

    it.scoped("when the owner dies the client gets 404, initializes again and carries on", () =>
      Effect.gen(function*() {
        const cluster = yield* TestCluster
        const client = yield* ourClient
        const owner = yield* whoami(client)
        const dying = cluster.members.find((m) => `pid ${m.child.pid}` === owner)!
        yield* dying.kill
        const after = yield* Effect.forEach([1, 2, 3], () => whoami(client))
        expect(after.every((pid) => pid !== owner)).toBe(true)
        expect(new Set(after).size).toBe(1)
      }))
  }
)
