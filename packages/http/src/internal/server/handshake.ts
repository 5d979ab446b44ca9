/**
 * The handshake eras (2025-03-26 … 2025-11-25) on the MCP endpoint: a POST carries messages to a session (an
 * `initialize` without a session creates one) and is answered with their responses, as JSON or SSE; a GET opens the
 * session's standalone stream or resumes one with `Last-Event-ID`; a DELETE ends the session. A cancellation that
 * overtakes its request (on another connection) cancels it when it arrives.
 */
import { Transport } from "@effect-mcp/core"
import { Json, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as EventStore from "../../EventStore.js"
import type * as SessionDirectory from "../../SessionDirectory.js"
import * as Media from "../media.js"
import * as Outbox from "../outbox.js"
import type { Admission } from "./admission.js"
import type { Answer, StreamParams } from "./answer.js"
import type { Config } from "./config.js"
import type { Incoming, Reply } from "./exchange.js"
import { relay } from "./relay.js"
import * as Replies from "./reply.js"
import type { Routing } from "./routing.js"
import { maxCancelledEarly, type Session } from "./session.js"
import type { Sessions } from "./sessions.js"

/** The handshake-era methods of the endpoint. */
export interface Handshake {
  readonly post: (
    request: Incoming,
    body: unknown,
    auth: Transport.AuthInfo | undefined,
    accept: Media.Accepted
  ) => Effect.Effect<Reply>
  readonly get: (request: Incoming, auth: Transport.AuthInfo | undefined) => Effect.Effect<Reply>
  readonly delete: (request: Incoming, auth: Transport.AuthInfo | undefined) => Effect.Effect<Reply>
}

/** What the handshake eras are served with. */
export interface Deps {
  readonly config: Config
  readonly maxBatchSize: number
  readonly store: EventStore.EventStoreService | undefined
  readonly sessions: Sessions
  readonly routing: Routing
  readonly admission: Admission
  readonly answer: Answer
  readonly params: StreamParams
  /** Where the sessions of the server's other processes are, when it has any. */
  readonly directory: SessionDirectory.SessionDirectoryService | undefined
}

const invalid = (message: string) => new McpError.InvalidRequest({ message })
const initializeInBatch = Replies.error(400, invalid("Invalid request: initialize must not be part of a batch"))
const batchRevision = Replies.error(
  400,
  invalid("Invalid request: JSON-RPC batches are only accepted from 2025-03-26 sessions")
)
const notJsonRpc = invalid("Invalid request: not a JSON-RPC message")
const alreadyInFlight = invalid("Invalid request: a request with this id is already in flight")
const noStandalone = Replies.methodNotAllowed("Method not allowed", "POST, DELETE")
const okStatus = () => 200

const isMessage = (m: unknown) =>
  JsonRpc.looksLikeRequest(m) || JsonRpc.looksLikeNotification(m) || JsonRpc.looksLikeResponse(m)

/** The handshake eras of an endpoint. */
export const make = (deps: Deps): Handshake => {
  const { admission, answer, config, directory, maxBatchSize, params, routing, sessions, store } = deps

  /**
   * A request for a session this process does not hold: relayed to the process that owns it, when there is a
   * directory and another live process does; otherwise the refusal stands (404 for an unknown session).
   */
  const elsewhere = (request: Incoming, refusal: Reply, body: string | undefined): Effect.Effect<Reply> => {
    const sessionId = request.headers["mcp-session-id"]
    if (directory === undefined || refusal.status !== 404 || sessionId === undefined) return Effect.succeed(refusal)
    return Effect.map(relay(directory, sessionId, request, body), (relayed) => relayed ?? refusal)
  }

  /** A cancelled request gets no response: its POST stream ends without one. */
  const settleCancellations = (s: Session, items: ReadonlyArray<unknown>): Effect.Effect<void> => {
    const cancels = items.filter((m) => Json.record(m).method === "notifications/cancelled")
    // Most POSTs carry no cancellation: no `forEach` for them.
    return cancels.length === 0 ? Effect.void : Effect.forEach(cancels, (m) => {
      const id = Json.record(Json.record(m).params).requestId
      if (!JsonRpc.isRequestId(id)) return Effect.void
      const target = s.routes.get(id)
      if (target === undefined) {
        s.cancelledEarly.add(id)
        if (s.cancelledEarly.size > maxCancelledEarly) {
          s.cancelledEarly.delete(s.cancelledEarly.values().next().value!)
        }
        return Effect.void
      }
      Outbox.settle(target, id)
      s.routes.delete(id)
      return Outbox.settled(target) ? routing.endStream(s, target) : Effect.void
    }, { discard: true })
  }

  // `post` and `posted` are chains of plain code, not a generator: they run for every POST of a session
  // (docs/benchmarks.md, "HTTP shared costs, session 23").
  const post = (request: Incoming, body: unknown, auth: Transport.AuthInfo | undefined, accept: Media.Accepted) =>
    Effect.suspend((): Effect.Effect<Reply> => {
      const items: ReadonlyArray<unknown> = Array.isArray(body) ? body : [body]
      if (items.length === 0 || !items.every(isMessage)) {
        return Effect.succeed(
          Replies.error(400, notJsonRpc, {}, Array.isArray(body) ? null : JsonRpc.salvageId(body))
        )
      }
      const isInit = JsonRpc.looksLikeRequest(body) && body.method === "initialize"
      if (Array.isArray(body) && items.some((m) => JsonRpc.looksLikeRequest(m) && m.method === "initialize")) {
        return Effect.succeed(initializeInBatch)
      }
      if (isInit && request.headers["mcp-session-id"] === undefined) {
        return Effect.flatMap(
          sessions.create(auth?.clientId, admission.clientOf(request)),
          (created) =>
            Either.isLeft(created)
              ? Effect.succeed(created.left)
              : posted(created.right, body, items, isInit, auth, accept)
        )
      }
      const found = sessions.lookup(request, auth)
      if (Either.isLeft(found)) return elsewhere(request, found.left, JSON.stringify(body))
      return posted(found.right, body, items, isInit, auth, accept)
    })

  /** A POST's messages handed to its session, and its answer. */
  const posted = (
    s: Session,
    body: unknown,
    items: ReadonlyArray<unknown>,
    isInit: boolean,
    auth: Transport.AuthInfo | undefined,
    accept: Media.Accepted
  ): Effect.Effect<Reply> => {
    if (Array.isArray(body) && s.revision !== "2025-03-26") return Effect.succeed(batchRevision)
    if (Array.isArray(body) && body.length > maxBatchSize) {
      return Effect.succeed(Replies.error(
        400,
        invalid(`Invalid request: a batch of ${body.length} messages, more than ${maxBatchSize}`)
      ))
    }
    const requestIds = items.filter(JsonRpc.looksLikeRequest).map((m) => m.id)
    if (requestIds.some((id) => s.routes.has(id))) {
      return Effect.succeed(Replies.error(400, alreadyInFlight, {}, Array.isArray(body) ? null : requestIds[0]!))
    }
    s.active++
    sessions.touch(s)
    const release = Effect.sync(() => {
      s.active--
      sessions.touch(s)
    })
    const frame = Transport.frame(body, auth === undefined ? undefined : { auth })
    if (requestIds.length === 0) {
      s.incoming.push(frame)
      return settleCancellations(s, items).pipe(Effect.zipRight(release), Effect.as(Replies.empty(202)))
    }
    const stream = Outbox.make(`p${s.nextStream++}`)
    const as = Media.answerAs(accept, config.mode, false) ?? config.mode
    routing.setForm(stream, as)
    for (const id of requestIds) {
      Outbox.expect(stream, id)
      s.routes.set(id, stream)
    }
    s.streams.set(stream.key, stream)
    if (isInit) s.initializeId = (body as { readonly id: JsonRpc.RequestId }).id
    s.incoming.push(frame)
    const headers = { "mcp-session-id": s.id }
    return Effect.zipRight(
      settleCancellations(s, items),
      Effect.suspend(() => {
        // A cancellation that overtook its request (on another connection) cancels it now, as if it came after it.
        const overtaken = requestIds.filter((id) => s.cancelledEarly.delete(id)).map((requestId) => ({
          jsonrpc: "2.0" as const,
          method: "notifications/cancelled",
          params: { requestId, reason: "cancelled before the request arrived" }
        }))
        for (const cancel of overtaken) s.incoming.push(Transport.frame(cancel))
        const answered = isInit
          ? Effect.flatMap(Outbox.take(stream, release), (first) =>
            s.revision === undefined
              // initialize failed: no session comes of it.
              ? release.pipe(
                Effect.zipRight(sessions.close(s)),
                Effect.as(Replies.json(200, JSON.stringify(first.message)))
              )
              : answer(s, stream, headers, release, okStatus, first, as))
          : answer(s, stream, headers, release, okStatus, undefined, as)
        return overtaken.length === 0 ? answered : Effect.zipRight(settleCancellations(s, overtaken), answered)
      })
    )
  }

  const get = (request: Incoming, auth: Transport.AuthInfo | undefined) =>
    Effect.gen(function*() {
      if (!config.standaloneSse) return noStandalone
      if (!Media.accepted(request.headers["accept"]).sse) return Replies.notAcceptableStream
      const found = sessions.lookup(request, auth)
      if (Either.isLeft(found)) return yield* elsewhere(request, found.left, undefined)
      const s = found.right
      sessions.touch(s)
      const headers = { ...Replies.sseHeaders, "mcp-session-id": s.id }
      const lastEventId = request.headers["last-event-id"]
      const parsed = lastEventId === undefined ? null : /^([gp]\d*)\.(-?\d+)$/.exec(lastEventId)
      let target = s.standalone
      let replay: ReadonlyArray<EventStore.StoredEvent> = []
      if (parsed !== null && store !== undefined) {
        const key = parsed[1]!
        const stored = yield* Effect.either(store.after(s.id, key, Number(parsed[2])))
        if (Either.isLeft(stored)) {
          yield* Effect.logWarning("effect-mcp: the event store could not replay a stream", stored.left)
          return Replies.eventStoreUnavailable
        }
        replay = stored.right
        const live = key === "g" ? s.standalone : s.streams.get(key)
        // A POST stream that has ended: replay what the client missed, then end.
        target = live !== undefined ? live : Outbox.makeEnded(key)
      }
      const body = yield* Outbox.write(target, {
        eventId: store === undefined ? undefined : params.eventIdOf(target.key),
        replay,
        first: undefined,
        primingRetryMs: params.primingFor(s.revision),
        keepAlive: config.keepAlive,
        lifetime: params.lifetimeFor(s.revision),
        onEnd: Effect.sync(() => {
          if (target !== s.standalone && Outbox.isFinalTaken(target)) s.streams.delete(target.key)
          sessions.touch(s)
        })
      })
      return Replies.sse(body, headers)
    })

  const del = (request: Incoming, auth: Transport.AuthInfo | undefined) =>
    Effect.gen(function*() {
      const found = sessions.lookup(request, auth)
      if (Either.isLeft(found)) return yield* elsewhere(request, found.left, undefined)
      yield* sessions.close(found.right)
      return Replies.empty(200)
    })

  return { post, get, delete: del }
}
