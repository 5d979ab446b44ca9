// Handshake-era sessions (2025-11-25) on three everything processes (`--http --redis`) behind a round-robin proxy
// that is not sticky: every request for a session that reaches another process is relayed to the session's owner
// (found in Redis), and its answer, SSE included, streams back. When the owner dies, the client gets 404 and
// initializes again on a live process. Then the same for the deprecated HTTP+SSE transport (2024-11-05): each POST
// to `/messages` is relayed to the process that holds the session's `/sse` stream, whose death ends that stream.
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { expect, layer } from "@effect/vitest"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport as V1Sse } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type Notification as V1Notification,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type Cluster as Running, startCluster } from "../../cluster/src/Cluster.js"
import * as Cluster from "../src/Cluster.js"

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

class LegacyCluster extends Context.Tag("test/LegacyCluster")<LegacyCluster, Running>() {}

/** Our client pinned to 2024-11-05 at the proxy's `/sse`: its first POST there gets 404, so it speaks HTTP+SSE. */
const ourLegacyClient = Effect.flatMap(LegacyCluster, (cluster) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-legacy", version: "0.0.0", revision: "2024-11-05" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url: `${cluster.proxy.origin}/sse` }))
      )
    ),
    Context.get(McpClient.McpClient)
  ))

/** SDK 1.32's client over its `SSEClientTransport`, with the URLs it POSTed to and the errors it reported. */
interface SdkLegacy {
  readonly client: V1Client
  /** The message endpoint (`/messages?sessionId=…`) of its session, as it POSTs there. */
  readonly posted: ReadonlyArray<string>
  /** Its first error (its SSE stream failing). */
  readonly failed: Deferred.Deferred<Error>
  readonly notifications: Queue.Queue<V1Notification>
}

/** SDK 1.32's HTTP+SSE client through the proxy, closed with the scope. */
const sdkLegacyClient = Effect.flatMap(LegacyCluster, (cluster) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const failed = yield* Deferred.make<Error>()
      const notifications = yield* Queue.unbounded<V1Notification>()
      const posted: Array<string> = []
      const client = yield* Effect.promise(async () => {
        const transport = new V1Sse(new URL(`${cluster.proxy.origin}/sse`), {
          fetch: (url, init) => {
            if (init?.method === "POST") posted.push(String(url))
            return fetch(url, init)
          }
        })
        const client = new V1Client({ name: "cluster-sdk1-sse", version: "1.32.2" }, { capabilities: {} })
        for (const schema of [ToolListChangedNotificationSchema, ResourceUpdatedNotificationSchema]) {
          client.setNotificationHandler(schema, async (n) => {
            Queue.unsafeOffer(notifications, n)
          })
        }
        await client.connect(transport)
        client.onerror = (error) => Deferred.unsafeDone(failed, Exit.succeed(error))
        return client
      })
      return { client, posted, failed, notifications } satisfies SdkLegacy
    }),
    ({ client }) => Effect.promise(() => client.close())
  ))

const sdkWhoami = (sdk: SdkLegacy) =>
  Effect.map(
    Effect.promise(() => sdk.client.callTool({ name: "cluster_whoami", arguments: {} })),
    (r) => textOf(r as never)
  )

/** An SDK client whose session is held by the process `pid` (the proxy hands each new stream to the next process). */
const sdkLegacyClientOn = (pid: string): Effect.Effect<SdkLegacy, string, LegacyCluster | Scope.Scope> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 12; attempt++) {
      const scope = yield* Scope.make()
      const sdk = yield* Scope.extend(sdkLegacyClient, scope)
      if ((yield* sdkWhoami(sdk)) === pid) {
        yield* Effect.addFinalizer((exit) => Scope.close(scope, exit))
        return sdk
      }
      yield* Scope.close(scope, Exit.void)
    }
    return yield* Effect.fail(`no SSE stream landed on ${pid}`)
  })

/** A 2026-07-28 client straight to one process (no proxy): a change it makes happens on that process. */
const directClient = (origin: string) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-direct", version: "0.0.0" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url: `${origin}/mcp` }))
      )
    ),
    Context.get(McpClient.McpClient)
  )

const postTo = (url: string, body: unknown) =>
  Effect.promise(() =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  )

layer(Layer.scoped(LegacyCluster, startCluster(3)), { excludeTestServices: true, timeout: "120 seconds" })(
  "2024-11-05 HTTP+SSE sessions on three processes behind a proxy that is not sticky",
  (it) => {
    it.scoped("tools, a call with progress, list changes and resource updates, for our client and SDK 1.32", () =>
      Effect.gen(function*() {
        const cluster = yield* LegacyCluster
        const ours = yield* ourLegacyClient
        expect(ours.revision).toBe("2024-11-05")
        const before = new Map(cluster.proxy.counts)
        expect((yield* ours.listTools()).map((t) => t.name)).toContain("cluster_touch")
        const events = Chunk.toReadonlyArray(
          yield* ours.callToolStream("test_tool_with_progress", {}).pipe(Stream.runCollect)
        )
        expect(events.map((e) => e._tag)).toEqual(["Progress", "Progress", "Progress", "Result"])
        // Every POST reached the next process; each was carried to the one holding the stream.
        const owner = yield* whoami(ours)
        expect(yield* Effect.forEach([1, 2, 3], () => whoami(ours))).toEqual([owner, owner, owner])
        expect([...cluster.proxy.counts].filter(([k, n]) => n > (before.get(k) ?? 0)).length).toBe(3)

        const sdk = yield* sdkLegacyClient
        expect((yield* Effect.promise(() => sdk.client.listTools())).tools.map((t) => t.name)).toContain(
          "test_tool_with_progress"
        )
        const progress: Array<number> = []
        const called = yield* Effect.promise(() =>
          sdk.client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
            onprogress: (p) => void progress.push(p.progress)
          })
        )
        expect(textOf(called as never)).toMatch(/^Progress reported for token /)
        // The last progress comes right before the result, and SDK 1.32 runs a notification's handler a microtask after
        // it reads it but settles a response at once: the result can drop it. The two before it always arrive.
        expect(progress.slice(0, 2)).toEqual([0, 50])

        // A change made on a process that holds neither session reaches both, over the bus.
        const sdkOwner = yield* sdkWhoami(sdk)
        const elsewhere = cluster.members.find((m) => ![owner, sdkOwner].includes(`pid ${m.child.pid}`))!
        const received = yield* Queue.unbounded<string>()
        yield* ours.notifications.pipe(Stream.runForEach((n) => Queue.offer(received, n.method)), Effect.forkScoped)
        yield* ours.subscribe(Cluster.boardUri)
        yield* Effect.promise(() => sdk.client.subscribeResource({ uri: Cluster.boardUri }))
        const changer = yield* directClient(elsewhere.origin)
        expect(textOf(yield* changer.callTool("cluster_touch", {}))).toBe(`touched by pid ${elsewhere.child.pid}`)
        const methods = ["notifications/resources/updated", "notifications/tools/list_changed"]
        const oursGot = new Set<string>()
        while (!methods.every((m) => oursGot.has(m))) oursGot.add(yield* Queue.take(received))
        const sdkGot = new Set<string>()
        while (!methods.every((m) => sdkGot.has(m))) sdkGot.add((yield* Queue.take(sdk.notifications)).method)
      }))

    it.scoped("a hostile or unknown sessionId gets 404 and harms no process", () =>
      Effect.gen(function*() {
        const cluster = yield* LegacyCluster
        const ping = { jsonrpc: "2.0", id: 1, method: "ping" }
        for (
          const id of ["0".repeat(32), "x".repeat(6000), encodeURIComponent("*:session:\r\n\u0000{}"), ""]
        ) {
          for (let i = 0; i < 3; i++) {
            expect((yield* postTo(`${cluster.proxy.origin}/messages?sessionId=${id}`, ping)).status).toBe(404)
          }
        }
        expect(cluster.members.every((m) => m.child.exitCode === null && m.child.signalCode === null)).toBe(true)
      }))

    it.scoped("when the owner dies its stream ends, a POST for its session gets 404, and a new connection works", () =>
      Effect.gen(function*() {
        const cluster = yield* LegacyCluster
        const ours = yield* ourLegacyClient
        const owner = yield* whoami(ours)
        const sdk = yield* sdkLegacyClientOn(owner)
        const endpoint = sdk.posted.at(-1)!
        expect(endpoint).toMatch(/\/messages\?sessionId=[0-9a-f]{32}$/)
        yield* cluster.members.find((m) => `pid ${m.child.pid}` === owner)!.kill
        // The SDK's stream ends with an error; our client's connection is closed, and its call fails.
        expect(yield* Deferred.await(sdk.failed)).toBeInstanceOf(Error)
        yield* ours.closed
        const failed = yield* Effect.flip(whoami(ours))
        expect(failed._tag).toBe("ConnectionClosed")
        // The session's POSTs, wherever they land, are 404: its owner is gone, and so is the session.
        for (let i = 0; i < 3; i++) {
          expect((yield* postTo(endpoint, { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(404)
        }
        // Connecting again lands on a live process, and works.
        const again = yield* ourLegacyClient
        expect(yield* whoami(again)).not.toBe(owner)
        const sdkAgain = yield* sdkLegacyClient
        expect(yield* sdkWhoami(sdkAgain)).not.toBe(owner)
      }))
  }
)
