/**
 * The deprecated HTTP+SSE transport (2024-11-05) on its two endpoints: a GET opens a session that lives as long as
 * its SSE stream, whose first event names where to POST; a POST carries a message to the session its query names,
 * and its answer travels on that session's stream. On a server of several processes (a `SessionDirectory`), each
 * session is claimed in the directory while its stream is open, and a POST for a session another process holds is
 * relayed to it, so that the balancer need not be sticky.
 */
import { McpServer, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as SessionDirectory from "../../SessionDirectory.js"
import * as Media from "../media.js"
import * as Sse from "../sse.js"
import type { Admission } from "./admission.js"
import type { Config } from "./config.js"
import type { Incoming, Reply } from "./exchange.js"
import type { JsonBody } from "./jsonBody.js"
import { forget, relay, relayable } from "./relay.js"
import * as Replies from "./reply.js"
import type { RequestGuard } from "./requestGuard.js"
import { randomId, type Slot } from "./session.js"

/** The two legacy endpoints. */
export interface Legacy {
  /** GET: opens a session. */
  readonly stream: (request: Incoming) => Effect.Effect<Reply>
  /** POST: a message for the session named in the query. */
  readonly message: (request: Incoming) => Effect.Effect<Reply>
}

/** What the legacy transport is served with. */
export interface Deps {
  readonly config: Config
  readonly server: McpServer.McpServerService
  /** The endpoint's scope: every session's scope is forked from it. */
  readonly rootScope: Scope.Scope
  readonly admission: Admission
  readonly guard: RequestGuard
  readonly jsonBody: JsonBody
  readonly messagesPath: string
  /** Where the sessions of the server's other processes are, when it has any: each session is claimed there. */
  readonly directory: SessionDirectory.SessionDirectoryService | undefined
}

const accepted: Reply = { status: 202, headers: {}, contentType: "text/plain", body: "Accepted" }

/** The legacy endpoints of a server. */
export const make = (deps: Deps): Legacy => {
  const { admission, config, directory, guard, jsonBody, messagesPath, rootScope, server } = deps
  const sessions = new Map<string, { readonly incoming: Transport.Inbound }>()

  const stream = (request: Incoming) =>
    Effect.gen(function*() {
      const auth = yield* guard(request)
      if (Either.isLeft(auth)) return auth.left
      if (!Media.accepted(request.headers["accept"]).sse) return Replies.notAcceptableStream
      // A legacy session lives as long as its stream, which is open: it counts, but is never idle.
      const slot: Slot = { client: admission.clientOf(request), idle: () => false, close: Effect.void }
      const refused = yield* admission.admit(slot)
      if (refused !== undefined) return refused
      const id = randomId()
      if (directory !== undefined) {
        // A session the other processes cannot find would answer its POSTs 404 there: none is made while it is away.
        const claimed = yield* Effect.either(directory.claim(id))
        if (Either.isLeft(claimed)) {
          yield* Effect.logWarning("effect-mcp: the session directory is unavailable", claimed.left)
          admission.limits.remove(slot)
          return Replies.directoryUnavailable
        }
      }
      const incoming = yield* Transport.makeInbound
      const outgoing = yield* Queue.unbounded<Transport.Outgoing>()
      const scope = yield* Scope.fork(rootScope, ExecutionStrategy.sequential)
      sessions.set(id, { incoming })
      const description: Transport.Description = { networkTransport: "tcp", sessionId: id }
      const transport: Transport.TransportService = {
        receive: incoming.receive,
        listen: incoming.listen,
        send: (message) => Queue.offer(outgoing, message).pipe(Effect.asVoid),
        describe: () => description
      }
      // Served in the session's scope with no fiber of its own; its end (the stream's, or the server's shutdown)
      // ends the stream of events.
      yield* Scope.addFinalizer(scope, Queue.shutdown(outgoing))
      yield* McpServer.connect.pipe(
        Effect.provideService(McpServer.McpServer, server),
        Effect.provideService(Transport.Transport, transport),
        Scope.extend(scope)
      )
      const end = Effect.suspend(() => {
        sessions.delete(id)
        admission.limits.remove(slot)
        incoming.end()
        return Effect.zipRight(Scope.close(scope, Exit.void), forget(directory, id))
      })
      const events = Stream.concat(
        Stream.make(Sse.endpoint(`${messagesPath}?sessionId=${id}`)),
        Stream.fromQueue(outgoing).pipe(Stream.map((m) => Sse.event(undefined, m)))
      )
      const ticks = Stream.fromSchedule(Schedule.spaced(config.keepAlive)).pipe(Stream.as(Sse.keepAlive))
      const body = Stream.merge(events, ticks, { haltStrategy: "left" }).pipe(Stream.ensuring(end))
      return Replies.sse(body, Replies.sseHeaders)
    })

  /** A POST for a session this process does not hold: relayed to its owner, else 404. */
  const elsewhere = (request: Incoming, id: string | null) =>
    Effect.gen(function*() {
      // The body is read only for a request that may be relayed.
      if (directory === undefined || id === null || !relayable(request, id)) return Replies.sessionNotFound()
      if (!Media.isJson(request.headers["content-type"])) return Replies.unsupportedMediaType
      const parsed = yield* jsonBody(request)
      if (Either.isLeft(parsed)) return parsed.left
      const relayed = yield* relay(directory, id, request, JSON.stringify(parsed.right), {
        timeout: config.relayTimeout
      })
      return relayed ?? Replies.sessionNotFound()
    })

  const message = (request: Incoming) =>
    Effect.gen(function*() {
      const auth = yield* guard(request)
      if (Either.isLeft(auth)) return auth.left
      const id = new URL(request.url, "http://localhost").searchParams.get("sessionId")
      const s = id === null ? undefined : sessions.get(id)
      if (s === undefined) return yield* elsewhere(request, id)
      if (!Media.isJson(request.headers["content-type"])) return Replies.unsupportedMediaType
      const parsed = yield* jsonBody(request)
      if (Either.isLeft(parsed)) return parsed.left
      s.incoming.push(Transport.frame(parsed.right, auth.right === undefined ? undefined : { auth: auth.right }))
      return accepted
    })

  return { stream, message }
}
