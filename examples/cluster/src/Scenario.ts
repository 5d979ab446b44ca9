/**
 * The scale-out scenario, told a line per event: three everything processes on one Redis behind a round-robin proxy
 * that is not sticky serve one 2026-07-28 client, one 2025-11-25 session and one 2024-11-05 HTTP+SSE session as one
 * server, then one process is SIGKILLed and the clients carry on.
 */
import { ClientHandlers, McpClient } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import type { JsonRpc, Mcp } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type Cluster, startCluster } from "./Cluster.js"

/** Tells one event. */
export type Say = (line: string) => Effect.Effect<void>

const textOf = (result: Mcp.CallToolResult) => result.content.map((c) => ("text" in c ? c.text : c.type)).join(" ")

/** A client through the proxy: unpinned (2026-07-28, stateless) or pinned to a handshake revision (a session). */
const clientOf = (cluster: Cluster, revision?: "2025-11-25") =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-example", version: "0.1.0", ...(revision === undefined ? {} : { revision }) })
        .pipe(
          Layer.provide(McpNodeHttpClient.layer({ url: cluster.url })),
          Layer.provide(ClientHandlers.elicitation({
            elicit: () => Effect.succeed({ action: "accept", content: { username: "ada", email: "ada@example.com" } })
          }))
        )
    ),
    Context.get(McpClient.McpClient)
  )

/** A client pinned to 2024-11-05 at the proxy's `/sse`: the deprecated HTTP+SSE transport. */
const legacyClientOf = (cluster: Cluster) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "cluster-example", version: "0.1.0", revision: "2024-11-05" }).pipe(
        Layer.provide(McpNodeHttpClient.layer({ url: `${cluster.proxy.origin}/sse` }))
      )
    ),
    Context.get(McpClient.McpClient)
  )

/** Listens on the next process; each notification it gets is told. */
const listenOnNext = (client: McpClient.McpClientService, say: Say, n: number) =>
  Effect.gen(function*() {
    const got = yield* Queue.unbounded<JsonRpc.Notification>()
    yield* client.listen({ toolsListChanged: true, resourceSubscriptions: ["test://cluster/board"] }).pipe(
      Stream.runForEach((note) => Effect.zipRight(say(`listener ${n}: ${note.method}`), Queue.offer(got, note))),
      Effect.forkScoped
    )
    yield* Queue.take(got)
    return got
  })

/** Runs the scenario in the scope (the cluster stops when it closes). */
export const run = (say: Say): Effect.Effect<void, Error | McpClient.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const cluster = yield* startCluster(3)
    yield* say(`redis-server on ${cluster.redis.url}`)
    for (const m of cluster.members) yield* say(`everything --redis: pid ${m.child.pid} on ${m.origin}`)
    yield* say(`round-robin proxy on ${cluster.proxy.origin}`)

    const modern = yield* clientOf(cluster)
    yield* say(`2026-07-28 client connected (stateless: ${modern.stateless})`)
    for (let i = 0; i < 3; i++) {
      yield* say(`cluster_whoami answered by ${textOf(yield* modern.callTool("cluster_whoami", {}))}`)
    }

    const listeners = yield* Effect.forEach([1, 2, 3], (n) => listenOnNext(modern, say, n))
    yield* say(`cluster_touch: ${textOf(yield* modern.callTool("cluster_touch", {}))}`)
    for (const got of listeners) {
      yield* Queue.take(got).pipe(
        Effect.repeat({ until: (note) => note.method === "notifications/tools/list_changed" })
      )
    }

    const asked = yield* modern.callTool("test_elicitation", { message: "Who are you?" })
    yield* say(`input_required round trip across processes: ${textOf(asked)}`)

    const task = yield* modern.callToolAsTask("cluster_task", { ms: 300 })
    yield* say(`task ${task.taskId} started: ${task.created.status}`)
    yield* say(`task polled through another process: ${(yield* task.status).status}`)
    yield* say(`task result: ${textOf(yield* task.result)}`)

    const session = yield* clientOf(cluster, "2025-11-25")
    for (let i = 0; i < 3; i++) {
      yield* say(`2025-11-25 session call answered by ${textOf(yield* session.callTool("cluster_whoami", {}))}`)
    }

    // Its stream stays on one process; each POST reaches the next one, which relays it there.
    const legacy = yield* legacyClientOf(cluster)
    for (let i = 0; i < 3; i++) {
      yield* say(`2024-11-05 HTTP+SSE call answered by ${textOf(yield* legacy.callTool("cluster_whoami", {}))}`)
    }

    const long = yield* modern.callToolAsTask("cluster_task", { ms: 600_000 })
    const victim = cluster.members[1]!
    yield* victim.kill
    yield* say(`SIGKILL pid ${victim.child.pid}`)
    for (let i = 0; i < 3; i++) {
      yield* say(`cluster_whoami answered by ${textOf(yield* modern.callTool("cluster_whoami", {}))}`)
    }
    yield* say(`2025-11-25 session call answered by ${textOf(yield* session.callTool("cluster_whoami", {}))}`)
    // Still known after the kill: working, or failed once its process's heartbeat has expired (if it ran there).
    const status = yield* long.status
    yield* say(
      `task ${long.taskId} after the kill: ${status.status}${status.statusMessage ? ` (${status.statusMessage})` : ""}`
    )
    yield* say("done")
  })
