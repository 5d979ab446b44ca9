import { McpServer } from "@effect-mcp/core"
import { McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { createServer } from "node:http"
import { adapter, info, listenOnLoopback, messages, openSession, post, tools } from "./helpers.js"

const slowCall = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: {} } }
const echoCall = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }

/**
 * The whole body of a response, or `undefined` when the response or its body was cut; fails when it is still open
 * 5 s later.
 */
const bodyOf = (response: Promise<Response>) =>
  Effect.promise(() => response.then((r) => r.text()).then((body) => ({ body }), () => ({ body: undefined }))).pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the response is still open after 5 s") })
  )

const registry = (hooks: Parameters<typeof tools>[0] = {}) =>
  tools(hooks).pipe(Layer.provideMerge(McpServer.layer(info)))

// These test McpNodeHttpServer itself; the http-platform project runs the rest of the suite on the other adapter.
describe.skipIf(adapter !== "node")("McpNodeHttpServer", () => {
  it.scopedLive("listens on 127.0.0.1 at a free port by default, and Address names the endpoint", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(McpNodeHttpServer.layer({ path: "/rpc" }).pipe(Layer.provide(registry())))
      const address = Context.get(context, McpNodeHttpServer.Address)
      expect(address.host).toBe("127.0.0.1")
      expect(address.url).toBe(`http://127.0.0.1:${address.port}/rpc`)
      const { headers } = yield* openSession(address.url)
      const answer = yield* messages(yield* post(address.url, echoCall, headers))
      expect(answer[0].result.content[0].text).toContain("hi")
      const other = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}/mcp`, { method: "POST" }))
      expect(other.status).toBe(404)
    }))

  it.scopedLive("closing its scope interrupts requests in flight, ends open streams and frees the port", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const scope = yield* Scope.make()
      const hooks = {
        onSlowStarted: Deferred.succeed(started, undefined),
        onSlowInterrupted: Deferred.succeed(interrupted, undefined)
      }
      const context = yield* Layer.buildWithScope(McpNodeHttpServer.layer().pipe(Layer.provide(registry(hooks))), scope)
      const { port, url } = Context.get(context, McpNodeHttpServer.Address)
      const { headers } = yield* openSession(url)
      const stream = yield* Effect.promise(() =>
        fetch(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } })
      )
      expect(stream.status).toBe(200)
      const slow = Effect.runPromise(post(url, slowCall, headers))
      // Its fetch may fail once the server closes, before bodyOf reads it: handled now, not reported as unhandled.
      slow.catch(() => undefined)
      yield* Deferred.await(started).pipe(Effect.timeout("5 seconds"))
      yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("5 seconds"))
      yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      // The standalone stream ends, or is cut, instead of staying open; it carried no message.
      const rest = yield* bodyOf(Promise.resolve(stream))
      expect(rest.body ?? "").not.toContain("data: {")
      // The interrupted call got no answer: its response was cut, or ended without a result.
      const answer = yield* bodyOf(slow)
      expect(answer.body ?? "").not.toContain("result")
      // Nothing holds the port: a new server binds it.
      const again = yield* Layer.build(McpNodeHttpServer.layer({}, { port }).pipe(Layer.provide(registry())))
      expect(Context.get(again, McpNodeHttpServer.Address).port).toBe(port)
    }))

  it.scopedLive("a port that is taken fails with ListenError", () =>
    Effect.gen(function*() {
      const first = yield* Layer.build(McpNodeHttpServer.layer().pipe(Layer.provide(registry())))
      const { port } = Context.get(first, McpNodeHttpServer.Address)
      const second = yield* Layer.build(McpNodeHttpServer.layer({}, { port }).pipe(Layer.provide(registry()))).pipe(
        Effect.flip
      )
      expect(second._tag).toBe("ListenError")
    }))

  it.scopedLive("listener serves the endpoint on a node:http server of one's own", () =>
    Effect.gen(function*() {
      const mcp = yield* Layer.build(registry())
      const onRequest = yield* McpNodeHttpServer.listener().pipe(Effect.provide(mcp))
      const server = createServer(onRequest)
      const port = yield* listenOnLoopback(server)
      const url = `http://127.0.0.1:${port}/mcp`
      const { headers } = yield* openSession(url)
      const answer = yield* messages(yield* post(url, echoCall, headers))
      expect(answer[0].id).toBe(8)
    }))
})
