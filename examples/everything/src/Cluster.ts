/**
 * What the everything server adds when it runs as one of several processes (`--redis <url>`): tools that say which
 * process answered, run as a task on whichever process started it, and make a change (a resource update and a tool
 * list change) on the process that gets the call, which the shared event bus carries to listeners on every process.
 */
import { McpServer, Tool } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"

/** The resource `cluster_touch` updates. */
export const boardUri = "test://cluster/board"

/** The tool `cluster_touch` adds and removes, so that the tool list changes. */
export const extraTool = "cluster_extra"

/** This process, as the tools name it. */
const me = `pid ${process.pid}`

/** `cluster_whoami`: which process answered. */
const WhoAmI = McpServer.tool({
  name: "cluster_whoami",
  description: "Says which process of the cluster answered",
  input: Schema.Struct({}),
  handler: () => Effect.succeed(me)
})

/** `cluster_task`: waits `ms`, then says which process ran it; a task when the client asks for one. */
const SlowTask = McpServer.tool({
  name: "cluster_task",
  description: "Waits for ms milliseconds (as a task when asked), then says which process ran it",
  task: "optional",
  input: Schema.Struct({ ms: Schema.Number }),
  handler: ({ ms }) => Effect.as(Effect.sleep(ms), `done by ${me}`)
})

/** The extra tool's definition. */
const extra = Tool.make(
  Tool.define({
    name: extraTool,
    description: "Comes and goes with each cluster_touch",
    input: Schema.Struct({}),
    handler: () => Effect.succeed(me)
  }),
  Context.empty()
)

/** `cluster_touch` and the board it updates. */
const Touch = Layer.unwrapEffect(Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const touches = yield* Ref.make(0)
  return Layer.mergeAll(
    McpServer.resource({
      uri: boardUri,
      name: "cluster-board",
      description: "Updated by cluster_touch on any process",
      mimeType: "text/plain",
      read: Effect.map(Ref.get(touches), (n) => `touched ${n} times on ${me}`)
    }),
    McpServer.tool({
      name: "cluster_touch",
      description: "Updates test://cluster/board and adds or removes cluster_extra, on this process",
      input: Schema.Struct({}),
      handler: () =>
        Effect.gen(function*() {
          const n = yield* Ref.updateAndGet(touches, (k) => k + 1)
          yield* server.notifyResourceUpdated(boardUri)
          yield* n % 2 === 1 ? server.addTool(extra) : server.removeTool(extraTool)
          return `touched by ${me}`
        })
    })
  )
}))

/** The cluster's tools and resource. */
export const layer: Layer.Layer<never, never, McpServer.McpServer> = Layer.mergeAll(WhoAmI, SlowTask, Touch)
