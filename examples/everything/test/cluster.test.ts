// Three processes of the everything server (`--http --redis`) behind a round-robin proxy with no stickiness serve as
// one server to 2026-07-28 clients, ours and the official SDK v2 client: consecutive requests reach different
// processes, so every multi-request exchange below crosses processes. Last, one process is SIGKILLed mid-run.
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import type { JsonRpc } from "@effect-mcp/schema"
import { expect, layer } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { type Cluster as Running, startCluster } from "../../cluster/src/Cluster.js"
import * as Cluster from "../src/Cluster.js"

class TestCluster extends Context.Tag("test/Cluster")<TestCluster, Running>() {}

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> }) =>
  result.content.map((c) => c.text ?? `[${c.type}]`).join("\n")

/** Our client, unpinned (it negotiates 2026-07-28), answering elicitations with a fixed name. */
const ourClient = Effect.flatMap(TestCluster, (cluster) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-test", version: "0.0.0" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url: cluster.url })),
        Layer.provide(ClientHandlers.elicitation({
          elicit: () => Effect.succeed({ action: "accept", content: { username: "ada", email: "ada@example.com" } })
        }))
      )
    ),
    Context.get(McpClient.McpClient)
  ))

/** The official SDK v2 client at 2026-07-28, closed with the scope. */
const sdkClient = Effect.flatMap(TestCluster, (cluster) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new V2Client({ name: "cluster-sdk2", version: "2.4.0" }, {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: "auto" }
      })
      client.setRequestHandler("elicitation/create", async () => ({
        action: "accept" as const,
        content: { username: "grace", email: "grace@example.com" }
      }))
      await client.connect(new V2Http(new URL(cluster.url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  ))

/** How many requests the proxy has forwarded so far. */
const forwarded = Effect.map(TestCluster, (c) => [...c.proxy.counts.values()].reduce((a, b) => a + b, 0))

/** Starts a `subscriptions/listen` and waits for its acknowledgement; its notifications go to the queue. */
const listener = (client: McpClient.McpClientService) =>
  Effect.gen(function*() {
    const before = yield* forwarded
    const received = yield* Queue.unbounded<JsonRpc.Notification>()
    yield* client.listen({ toolsListChanged: true, resourceSubscriptions: [Cluster.boardUri] }).pipe(
      Stream.runForEach((n) => Queue.offer(received, n)),
      Effect.forkScoped
    )
    expect((yield* Queue.take(received)).method).toBe("notifications/subscriptions/acknowledged")
    // Its POST went through the proxy: the next request goes to the next process.
    yield* forwarded.pipe(Effect.repeat({ until: (n) => n > before, schedule: Schedule.spaced("10 millis") }))
    return received
  })

/** Takes notifications until one of `method` arrives. */
const awaitMethod = (queue: Queue.Dequeue<JsonRpc.Notification>, method: string) =>
  Queue.take(queue).pipe(Effect.repeat({ until: (n) => n.method === method }))

layer(Layer.scoped(TestCluster, startCluster(3)), { excludeTestServices: true, timeout: "120 seconds" })(
  "three everything processes on one Redis, behind a round-robin proxy",
  (it) => {
    it.scoped("consecutive calls are answered by every process", () =>
      Effect.gen(function*() {
        const client = yield* ourClient
        expect(client.stateless).toBe(true)
        const answers = yield* Effect.forEach([1, 2, 3], () => client.callTool("cluster_whoami", {}))
        expect(new Set(answers.map(textOf)).size).toBe(3)
      }))

    it.scoped("a change on one process reaches subscriptions/listen listeners on every process", () =>
      Effect.gen(function*() {
        const client = yield* ourClient
        // Three listens in a row: one on each process.
        const listeners = yield* Effect.forEach([1, 2, 3], () => listener(client))
        const sdk = yield* sdkClient
        const touched = yield* Effect.promise(() => sdk.callTool({ name: "cluster_touch", arguments: {} }))
        expect(textOf(touched as never)).toMatch(/^touched by pid \d+$/)
        for (const received of listeners) {
          expect(yield* awaitMethod(received, "notifications/resources/updated")).toMatchObject({
            params: { uri: Cluster.boardUri }
          })
          yield* awaitMethod(received, "notifications/tools/list_changed")
        }
      }))

    it.scoped("an input_required round trip crosses processes, for our client and the SDK's", () =>
      Effect.gen(function*() {
        const client = yield* ourClient
        const before = yield* forwarded
        const ours = yield* client.callTool("test_elicitation", { message: "Who?" })
        // The first attempt and its retry: two requests, so two processes.
        expect((yield* forwarded) - before).toBe(2)
        expect(textOf(ours)).toContain("ada")
        const sdk = yield* sdkClient
        const theirs = yield* Effect.promise(() =>
          sdk.callTool({ name: "test_elicitation", arguments: { message: "Who?" } })
        )
        expect(textOf(theirs as never)).toContain("grace")
      }))

    it.scoped("a task started through one process is polled, read and cancelled through the others", () =>
      Effect.gen(function*() {
        const client = yield* ourClient
        const quick = yield* client.callToolAsTask("cluster_task", { ms: 50 })
        const result = yield* quick.result
        expect(textOf(result)).toMatch(/^done by pid \d+$/)
        const slow = yield* client.callToolAsTask("cluster_task", { ms: 600_000 })
        expect((yield* slow.status).status).toBe("working")
        expect((yield* slow.status).status).toBe("working")
        expect((yield* slow.cancel).status).toBe("cancelled")
        expect((yield* slow.status).status).toBe("cancelled")
        expect((yield* quick.status).status).toBe("completed")
      }))

    it.scoped("SIGKILL of one process loses no acknowledged task, and clients carry on through the others", () =>
      Effect.gen(function*() {
        const cluster = yield* TestCluster
        const client = yield* ourClient
        const settled = yield* client.callToolAsTask("cluster_task", { ms: 10 })
        yield* settled.result
        // Long tasks on every process: one of them runs on the process about to die.
        const running = yield* Effect.forEach([1, 2, 3], () => client.callToolAsTask("cluster_task", { ms: 600_000 }))
        yield* cluster.members[1]!.kill
        // The others answer every call, and each acknowledged task is still known: settled, working, or (its
        // process gone, its heartbeat stopped) failed.
        const whoami = yield* Effect.forEach([1, 2, 3, 4], () => client.callTool("cluster_whoami", {}))
        expect(new Set(whoami.map(textOf)).size).toBe(2)
        expect((yield* settled.status).status).toBe("completed")
        // The dead process's task is failed once its heartbeat has expired; the others' tasks keep working.
        const states = yield* Effect.forEach(running, (task) => Effect.map(task.status, (t) => t.status)).pipe(
          Effect.filterOrFail((all) => all.includes("failed"), () => "no task failed yet"),
          Effect.retry(Schedule.spaced("200 millis"))
        )
        expect([...states].sort()).toEqual(["failed", "working", "working"])
        const sdk = yield* sdkClient
        const after = yield* Effect.promise(() => sdk.callTool({ name: "cluster_whoami", arguments: {} }))
        expect(textOf(after as never)).toMatch(/^pid \d+$/)
      }))
  }
)
