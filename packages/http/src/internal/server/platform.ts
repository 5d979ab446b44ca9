/**
 * The @effect/platform adapter of the endpoint: a platform request as an `Incoming` (its body read under the body
 * limit), a `Reply` as a platform response, the routes as an `HttpRouter` or as `HttpLayerRouter` routes, and the
 * origin a platform server is reached at (what a server on several processes advertises to the others).
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as BodyLimit from "../bodyLimit.js"
import { BodyTooLarge, BodyUnreadable, type Incoming, type Reply } from "./exchange.js"
import type { Route } from "./routes.js"

/** Reads a platform request's body whole, refusing one larger than `limit` bytes. */
const readBody = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    const length = request.headers["content-length"]
    if (BodyLimit.declaredTooLarge(length, limit)) return yield* new BodyTooLarge({ limit })
    // A declared length is all the body can be: read it whole (reading it as a Stream costs far more per request).
    if (length !== undefined && Number.isFinite(Number(length))) return yield* request.text
    const body = BodyLimit.collector<Uint8Array>(limit)
    yield* request.stream.pipe(
      Stream.runForEach((chunk) => BodyLimit.add(body, chunk) ? Effect.void : new BodyTooLarge({ limit }))
    )
    if (BodyLimit.overLimit(body)) return yield* new BodyTooLarge({ limit })
    const all = new Uint8Array(body.size)
    let at = 0
    for (const c of body.chunks) {
      all.set(c, at)
      at += c.length
    }
    return new TextDecoder().decode(all)
  }).pipe(Effect.catchTag("RequestError", (e) => new BodyUnreadable({ cause: e })))

/** A platform request as the endpoint reads it. */
export const fromPlatform = (request: HttpServerRequest.HttpServerRequest): Incoming => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  readText: (limit) => readBody(request, limit)
})

/** A reply as a platform response. */
export const toPlatform = (reply: Reply): HttpServerResponse.HttpServerResponse => {
  const options = {
    status: reply.status,
    headers: reply.headers,
    ...(reply.contentType === undefined ? {} : { contentType: reply.contentType })
  }
  return reply.body === undefined
    ? HttpServerResponse.empty(options)
    : typeof reply.body === "string"
    ? HttpServerResponse.text(reply.body, options)
    : HttpServerResponse.stream(reply.body, options)
}

/** The routes as a platform router. */
export const router = (routes: ReadonlyArray<Route>): HttpRouter.HttpRouter =>
  routes.reduce(
    (router, route) =>
      HttpRouter.route(route.method ?? "*")(
        route.path as HttpRouter.PathInput,
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request) => Effect.map(route.handle(fromPlatform(request)), toPlatform)
        )
      )(router),
    HttpRouter.empty
  )

/** The routes as `HttpLayerRouter` routes. */
export const layerRoutes = (routes: ReadonlyArray<Route>): ReadonlyArray<HttpLayerRouter.Route<never, never>> =>
  routes.map((route) =>
    HttpLayerRouter.route(
      route.method ?? "*",
      route.path as HttpLayerRouter.PathInput,
      (request) => Effect.map(route.handle(fromPlatform(request)), toPlatform)
    )
  )

/** Addresses that accept connections on every interface: the others reach them at the loopback address. */
const wildcards = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0", ""])

/**
 * The origin (`http://host:port`) at which a platform server listening on TCP is reached from this machine (a wildcard
 * address as 127.0.0.1); none for a Unix socket.
 */
export const originOf = (server: HttpServer.HttpServer): Option.Option<string> => {
  const address = server.address
  if (address._tag !== "TcpAddress") return Option.none()
  const host = wildcards.has(address.hostname) ? "127.0.0.1" : address.hostname
  return Option.some(`http://${host.includes(":") ? `[${host}]` : host}:${address.port}`)
}
