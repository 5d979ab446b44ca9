/**
 * The Streamable HTTP server: one MCP endpoint on an `HttpRouter` that serves every era at once,
 * deciding per request. Handshake-era clients (2025-03-26 … 2025-11-25) get sessions
 * (`Mcp-Session-Id`), each one an in-memory Transport under `McpServer.connect`, with JSON or SSE
 * answers, the standalone GET stream, resumability through the `EventStore`, keep-alive and
 * idle reaping. 2026-07-28 requests are stateless: each POST is one request on a connection they all
 * share (renumbered, so that clients' ids never meet), checked against its `Mcp-Method`/`Mcp-Name`
 * headers, and closing its response stream cancels it.
 * Host and Origin are checked against an allow-list, bodies are bounded, and an optional hook
 * authenticates every request (with RFC 9728 protected-resource metadata). The deprecated
 * HTTP+SSE transport (2024-11-05) can be served beside it on its own two endpoints, and an explicit CORS option lets
 * browser pages of listed origins call it.
 *
 * This module composes the endpoint; each concept lives in a module of its own under `internal/server/`: the request
 * guard and body reader, the era classifier, handshake sessions and their routing, the stateless endpoint, legacy
 * HTTP+SSE, protected-resource metadata, CORS, and the @effect/platform adapter (`McpNodeHttpServer` is the node:http
 * one).
 */
import { McpServer } from "@effect-mcp/core"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as EventStore from "./EventStore.js"
import * as Admission from "./internal/server/admission.js"
import * as Answer from "./internal/server/answer.js"
import * as Config from "./internal/server/config.js"
import * as Cors from "./internal/server/cors.js"
import * as Endpoint from "./internal/server/endpoint.js"
import type { Incoming, Reply } from "./internal/server/exchange.js"
import * as Handshake from "./internal/server/handshake.js"
import * as JsonBody from "./internal/server/jsonBody.js"
import * as Legacy from "./internal/server/legacy.js"
import * as Metadata from "./internal/server/metadata.js"
import * as Platform from "./internal/server/platform.js"
import * as RequestGuard from "./internal/server/requestGuard.js"
import * as Routes from "./internal/server/routes.js"
import * as Routing from "./internal/server/routing.js"
import * as ScopeCheck from "./internal/server/scopeCheck.js"
import * as Sessions from "./internal/server/sessions.js"
import * as Stateless from "./internal/server/stateless.js"
import * as SessionDirectory from "./SessionDirectory.js"

export {
  /** The token could not be checked: the authorization server could not be reached or answered garbage (503). */
  AuthUnavailable,
  /** An authentication hook for `Authorization: Bearer <token>` (requests without a token are refused). */
  bearer,
  /** Why a request was refused authentication (401, or 403 for `insufficient_scope`). */
  Unauthorized
} from "./internal/server/auth.js"
export type {
  /** Authenticates one HTTP request: the verified identity, `undefined` for an anonymous request, or a refusal. */
  Authenticate
} from "./internal/server/auth.js"
export {
  /** The names a local server answers to by default. */
  localHosts
} from "./internal/server/config.js"
export type {
  /** How the endpoint behaves. */
  Options
} from "./internal/server/config.js"
export type {
  /** Cross-origin access for browser pages on other origins (off unless given). */
  CorsOptions
} from "./internal/server/cors.js"
export {
  /** The request body was larger than the endpoint accepts (answered 413). */
  BodyTooLarge,
  /** The request body could not be read (the client went away, or sent something that is not a body). */
  BodyUnreadable
} from "./internal/server/exchange.js"
export type {
  /** An HTTP request as the endpoint reads it: its head, and its body as text on demand. */
  Incoming,
  /** An answer of the endpoint, for the server adapter to write. */
  Reply,
  /** What the endpoint reads of an HTTP request, whichever server carries it. */
  RequestHead
} from "./internal/server/exchange.js"
export type {
  /** OAuth 2.0 protected-resource metadata (RFC 9728), served at `/.well-known/oauth-protected-resource`. */
  ProtectedResourceMetadata
} from "./internal/server/metadata.js"

/** Builds the routes of the MCP endpoint (and the legacy and metadata ones when configured); sessions live in the Scope. */
const makeRoutes = (options: Config.Options) =>
  Effect.gen(function*() {
    const config = Config.resolve(options)
    const server = yield* McpServer.McpServer
    const rootScope = yield* Effect.scope
    const configuredStore = yield* Effect.serviceOption(EventStore.EventStore)
    const store = options.resumable === false
      ? undefined
      : Option.getOrElse(configuredStore, () => EventStore.makeMemory())
    const guard = RequestGuard.make(config)
    const jsonBody = JsonBody.make(config.maxBody)
    const admission = Admission.make(config)
    const routing = Routing.make(config.mode, store)
    const params = Answer.streamParams(config, store)
    const answer = Answer.make(config, store, params)
    // The shared stateless connection is made before the sessions, so that it is ended after them.
    const statelessPost = yield* Stateless.make(config, server, answer)
    const directory = Option.getOrUndefined(yield* Effect.serviceOption(SessionDirectory.SessionDirectory))
    if (directory !== undefined) {
      // Served by an @effect/platform HttpServer (or told where it is reached), the endpoint tells the server's other
      // processes where to relay requests for its sessions; the node:http server does once it listens.
      const origin = options.relayOrigin ??
        Option.getOrUndefined(Option.flatMap(yield* Effect.serviceOption(HttpServer.HttpServer), Platform.originOf))
      if (origin !== undefined) yield* directory.advertise(origin)
    }
    const sessions = yield* Sessions.make({
      server,
      rootScope,
      store,
      routing,
      admission,
      idleMs: config.idleMs,
      directory
    })
    const handshake = Handshake.make({
      config,
      maxBatchSize: server.options.maxBatchSize ?? McpServer.defaultMaxBatchSize,
      store,
      sessions,
      routing,
      admission,
      answer,
      params,
      directory
    })
    // Required scopes are checked at the door only on a protected endpoint (elsewhere core refuses them, -32001).
    const scopeCheck = options.authenticate === undefined
      ? undefined
      : ScopeCheck.make(
        server,
        options.protectedResource === undefined ? undefined : Metadata.url(options.protectedResource)
      )
    const routes: Array<Routes.Route> = [
      {
        path: config.path,
        method: undefined,
        handle: Endpoint.make(guard, jsonBody, handshake, statelessPost, scopeCheck)
      }
    ]
    if (config.legacy !== undefined) {
      const { messagesPath, ssePath } = config.legacy
      const legacy = Legacy.make({ config, server, rootScope, admission, guard, jsonBody, messagesPath, directory })
      routes.push(
        { path: ssePath, method: "GET", handle: legacy.stream },
        { path: messagesPath, method: "POST", handle: legacy.message }
      )
    }
    if (options.protectedResource !== undefined) {
      for (const { handle, path } of Metadata.routes(options.protectedResource)) {
        routes.push({ path, method: "GET", handle })
      }
    }
    return options.cors === undefined ? routes : routes.map(Cors.make(options.cors, RequestGuard.door(config)))
  })

/**
 * The MCP endpoint (and the legacy and metadata endpoints when configured) as one function of a request, for an HTTP
 * server of any kind: routed by path, 404 for any other. Sessions live in the Scope.
 */
export const handler = (
  options: Config.Options = {}
): Effect.Effect<(request: Incoming) => Effect.Effect<Reply>, never, McpServer.McpServer | Scope.Scope> =>
  Effect.map(makeRoutes(options), Routes.dispatch)

/**
 * The router with the MCP endpoint (and the protected-resource metadata when configured), to serve alone or beside
 * routes of one's own (`HttpRouter.concat(myRouter, mcpRouter)`); sessions live in the Scope.
 */
export const router = (
  options: Config.Options = {}
): Effect.Effect<HttpRouter.HttpRouter, never, McpServer.McpServer | Scope.Scope> =>
  Effect.map(makeRoutes(options), Platform.router)

/** Serves the MCP endpoint on the current HttpServer, for the McpServer in context. */
export const layer = (
  options: Config.Options = {}
): Layer.Layer<never, never, McpServer.McpServer | HttpServer.HttpServer> =>
  Layer.unwrapScoped(Effect.map(router(options), (routes) => HttpServer.serve(routes)))

/**
 * Adds the MCP endpoint (and the metadata and legacy endpoints when configured) to the `HttpLayerRouter` in context,
 * beside routes of one's own (`HttpLayerRouter.serve(Layer.mergeAll(McpHttpServer.layerRouter(), MyRoutes))`);
 * sessions live as long as the layer.
 */
export const layerRouter = (
  options: Config.Options = {}
): Layer.Layer<never, never, McpServer.McpServer | HttpLayerRouter.HttpRouter> =>
  HttpLayerRouter.addAll(Effect.map(makeRoutes(options), Platform.layerRoutes))
