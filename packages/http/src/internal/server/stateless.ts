/**
 * The 2026-07-28 endpoint: each POST is one request on a server connection that every stateless request shares,
 * renumbered on it so that two clients' ids never meet (its frame carries the client's id for the request context,
 * and its response gets that id back on the way out). A request is counted as a connection of the server while it
 * waits, its headers must agree with its body, and closing its answer before the response cancels it.
 *
 * The shared connection is a measured fast path: a connection per request cost about 0.4 ms in process and 0.8 ms of
 * server CPU over HTTP (docs/benchmarks.md, "Where the time goes", HTTP: the "echo over HTTP 2026-07-28 stateless"
 * rows). It is made with the endpoint, so that its fibers run in the endpoint's context, never in the context of
 * whichever request came first; it lives in the endpoint's scope, so shutting down ends a long `subscriptions/listen`.
 */
import { McpServer, Transport } from "@effect-mcp/core"
import { Json, JsonRpc, McpError, Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Scope from "effect/Scope"
import * as Media from "../media.js"
import * as Outbox from "../outbox.js"
import type { Answer } from "./answer.js"
import type { AnswerForm, Config } from "./config.js"
import type { Incoming, Reply } from "./exchange.js"
import * as HeaderCheck from "./headerCheck.js"
import * as Replies from "./reply.js"

// What telemetry records of the stateless connection: HTTP, and no session.
const tcp: Transport.Description = { networkTransport: "tcp" }

/** A stateless request waiting on the shared connection: where its messages go, and the id its client gave it. */
interface Route {
  readonly stream: Outbox.OutStream
  readonly clientId: JsonRpc.RequestId
  readonly as: AnswerForm
}

/** Answers a stateless POST. */
export type StatelessPost = (
  request: Incoming,
  body: unknown,
  auth: Transport.AuthInfo | undefined,
  accept: Media.Accepted
) => Effect.Effect<Reply>

/** The HTTP status 2026-07-28 answers a JSON error response with (200 for a result, or a code it does not map). */
const statusOf = (message: Transport.Outgoing | undefined): number => {
  if (message === undefined || Array.isArray(message)) return 200
  const single = message as JsonRpc.Message
  if (!JsonRpc.isErrorResponse(single)) return 200
  const code = single.error.code
  const { codes } = McpError
  return code === codes.MethodNotFound
    ? 404
    : code === codes.UnsupportedProtocolVersion || code === codes.MissingRequiredClientCapability ||
        code === codes.HeaderMismatch || code === codes.InvalidRequest || code === codes.ParseError
    ? 400
    : 200
}

const batchRefused = Replies.error(
  400,
  new McpError.InvalidRequest({ message: "Invalid request: JSON-RPC batches are not accepted under 2026-07-28" })
)
const onlyRequests = new McpError.InvalidRequest({ message: "Invalid request: only requests are accepted here" })

/** The stateless endpoint, its shared connection served in a scope forked from the current one. */
export const make = (
  config: Config,
  server: McpServer.McpServerService,
  answer: Answer
): Effect.Effect<StatelessPost, never, Scope.Scope> =>
  Effect.gen(function*() {
    const incoming = Transport.unsafeMakeInbound()
    const routes = new Map<JsonRpc.RequestId, Route>()
    let nextId = 0
    const transport: Transport.TransportService = {
      receive: incoming.receive,
      listen: incoming.listen,
      describe: () => tcp,
      send: (message, sendOptions) =>
        Effect.suspend(() => {
          // Batches are refused before they get here: a message is a response or a notification.
          if (Array.isArray(message)) return Effect.void
          const single = message as JsonRpc.Message
          if (JsonRpc.isResponse(single)) {
            const route = single.id === null ? undefined : routes.get(single.id)
            if (route === undefined || single.id === null) return Effect.void
            routes.delete(single.id)
            Outbox.settle(route.stream, route.clientId)
            return Outbox.push(route.stream, { ...single, id: route.clientId }, true)
          }
          const related = sendOptions?.relatedRequestId
          const route = related === undefined ? undefined : routes.get(related)
          return route === undefined || route.as === "json" ? Effect.void : Outbox.push(route.stream, single, false)
        })
    }
    // If the connection ends (the server shuts down), every request waiting on it ends without a response.
    const unanswered = Effect.suspend(() => {
      const waiting = [...routes.values()]
      routes.clear()
      return Effect.forEach(waiting, (route) => {
        Outbox.abandon(route.stream)
        return Outbox.end(route.stream)
      }, { discard: true })
    })
    // The connection is not one of the server's stats: each request counts as one while it waits.
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    yield* McpServer.connectWith({ counted: false }).pipe(
      Effect.flatMap((connection) => connection.closed),
      Effect.provideService(McpServer.McpServer, server),
      Effect.provideService(Transport.Transport, transport),
      Scope.extend(scope),
      Effect.ensuring(unanswered),
      Effect.forkIn(scope)
    )

    // Each request counts as a connection of the server from its POST until its answer ends, and as in flight until
    // its response: one entry in the server's stats for all of them. A scope and an entry per request were about 40
    // of a stateless call's 112 Effect instructions (docs/benchmarks.md, "Stateless HTTP CPU, session 23").
    let answering = 0
    yield* McpServer.track(server, {
      connections: () => answering,
      inFlight: () => routes.size,
      pending: () => 0
    }).pipe(Scope.extend(scope))

    return (request, body, auth, accept) => {
      if (!Json.isRecord(body)) return Effect.succeed(batchRefused)
      // A request (or what tries to be one: an id and no result) is answered with its id when it can be read; a
      // response or a notification never is.
      const id = JsonRpc.looksLikeResponse(body) ? null : JsonRpc.salvageId(body)
      const mismatch = HeaderCheck.mismatch(server, request, body)
      if (mismatch !== undefined) {
        return Effect.succeed(Replies.error(400, new McpError.HeaderMismatch({ message: mismatch }), {}, id))
      }
      if (JsonRpc.looksLikeNotification(body)) return Effect.succeed(Replies.empty(202))
      if (!JsonRpc.looksLikeRequest(body)) return Effect.succeed(Replies.error(400, onlyRequests, {}, id))
      const requestId = body.id
      // A listen stream is nothing but notifications: it is SSE whatever the response mode.
      const as = Media.answerAs(accept, config.mode, body.method === "subscriptions/listen")
      if (as === undefined) return Effect.succeed(Replies.notAcceptableStream)
      return Effect.suspend(() => {
        const stream = Outbox.make("r")
        const wireId = nextId++
        Outbox.expect(stream, requestId)
        routes.set(wireId, { stream, clientId: requestId, as })
        answering++
        // When the answer ends before the response (the client went away), the request is cancelled.
        let ended = false
        const end = Effect.sync(() => {
          if (ended) return
          ended = true
          answering--
          if (routes.delete(wireId)) {
            incoming.push(Transport.frame(
              { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: wireId } },
              { revision: Revision.stateless }
            ))
          }
        })
        incoming.push(
          Transport.frame({ ...body, id: wireId }, {
            revision: String(request.headers["mcp-protocol-version"]),
            requestId,
            ...(auth === undefined ? {} : { auth })
          })
        )
        return answer(undefined, stream, {}, end, statusOf, undefined, as)
      })
    }
  })
