/**
 * The Streamable HTTP endpoint as a web-standard fetch handler, `(request: Request) => Promise<Response>`, for every
 * runtime that speaks fetch: Cloudflare Workers (workerd), Bun (`Bun.serve`), Deno (`Deno.serve`), Node behind a
 * fetch bridge, Hono and any framework that hands out a `Request`. It is the same endpoint as `McpHttpServer` and
 * `McpNodeHttpServer` (guards, sessions, 2026-07-28 stateless, SSE, body limits, legacy HTTP+SSE when asked), and
 * imports no node:* module.
 *
 * Each request runs in a fiber of the handler's scope: `request.signal` aborting before the reply is handed over, or
 * the response's stream being cancelled (the client went away), interrupts it; an SSE body is written as the client
 * reads it. Disposing the
 * handler (closing its scope) ends every session and interrupts every request.
 *
 * Import it by its own path (`@effect-mcp/http/McpWebHandler`) where node:* modules are missing: the package's index
 * also carries the node:http server.
 */
import type { McpServer } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Scope from "effect/Scope"
import type { Options as EndpointOptions } from "./internal/server/config.js"
import * as Web from "./internal/server/web.js"
import * as McpHttpServer from "./McpHttpServer.js"

/** How the web handler behaves: the endpoint's options, and where a request comes from. */
export interface Options extends EndpointOptions {
  /**
   * The peer's address of a request, when the host tells it (Bun's `server.requestIP`, Deno's `info.remoteAddr`,
   * Cloudflare's `cf-connecting-ip`): the key of `maxSessionsPerClient` unless `clientKey` says otherwise.
   */
  readonly remoteAddress?: (request: Request) => string | undefined
}

/** A fetch handler: the endpoint as a function of a web request. */
export type Fetch = (request: Request) => Promise<Response>

/** The fetch handler of a server, in context for users already in Effect. */
export class McpWebHandler extends Context.Tag("@effect-mcp/http/McpWebHandler")<McpWebHandler, Fetch>() {}

/** A fetch handler with its own runtime: `fetch` serves, `dispose` ends every session and request. */
export interface WebHandler {
  /** Serves one request; the form workerd, `Bun.serve`, `Deno.serve` and Hono take. */
  readonly fetch: Fetch
  /** Ends every session and interrupts every request, then releases the server. */
  readonly dispose: () => Promise<void>
}

/**
 * The endpoint as a fetch handler for the McpServer in context; requests and sessions live in the Scope, and
 * closing it interrupts them (a request still waiting for its reply is then answered 503).
 */
export const make = (options: Options = {}): Effect.Effect<Fetch, never, McpServer.McpServer | Scope.Scope> =>
  Effect.gen(function*() {
    const handle = yield* McpHttpServer.handler(options)
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    const remoteAddress = options.remoteAddress
    return (request) =>
      new Promise<Web.Answer>((resolve) => {
        const signal = request.signal
        let responded = false
        const onAbort = () => fiber.unsafeInterruptAsFork(FiberId.none)
        // The signal counts until the reply is handed over: Deno aborts it once a response is sent, SSE or not; the
        // body's stream being cancelled is what says a client left during an SSE stream.
        const respond = (answer: Web.Answer) => {
          responded = true
          signal.removeEventListener("abort", onAbort)
          resolve(answer)
        }
        const fiber = runFork(Web.serve(handle, Web.fromRequest(request, remoteAddress?.(request)), respond))
        if (responded) return
        if (signal.aborted) return onAbort()
        signal.addEventListener("abort", onAbort, { once: true })
        fiber.addObserver(() => signal.removeEventListener("abort", onAbort))
      }).then(Web.toResponse)
  })

/** The fetch handler as a Layer over the server's Layer's output: sessions live as long as the Layer. */
export const layer = (options: Options = {}): Layer.Layer<McpWebHandler, never, McpServer.McpServer> =>
  Layer.scoped(McpWebHandler, make(options))

/**
 * A fetch handler for a server Layer, with a runtime of its own (built on the first request): the form to export
 * from a Worker, or to hand to `Bun.serve`, `Deno.serve` or Hono.
 *
 * @example
 * const handler = McpWebHandler.toFetch(MyServer.layer)
 * export default { fetch: handler.fetch }
 */
export const toFetch = <E>(server: Layer.Layer<McpServer.McpServer, E>, options: Options = {}): WebHandler => {
  const runtime = ManagedRuntime.make(layer(options).pipe(Layer.provide(server)))
  // Built on the first request: workerd forbids timers and random values at a module's top level.
  let served: Promise<Fetch> | undefined
  return {
    fetch: (request) => (served ??= runtime.runPromise(McpWebHandler)).then((fetch) => fetch(request)),
    dispose: () => runtime.dispose()
  }
}
