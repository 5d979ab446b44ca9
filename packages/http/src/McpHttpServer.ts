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
 * HTTP+SSE transport (2024-11-05) can be served beside it on its own two endpoints.
 */
import { McpServer, Transport } from "@effect-mcp/core"
import { type JsonRpc, Revision } from "@effect-mcp/schema"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as EventStore from "./EventStore.js"
import * as Guards from "./internal/guards.js"
import * as Media from "./internal/media.js"
import * as Outbox from "./internal/outbox.js"
import * as ParamHeaders from "./internal/paramHeaders.js"
import * as SessionLimits from "./internal/sessionLimits.js"
import * as Sse from "./internal/sse.js"
import * as Wire from "./internal/wire.js"

/** Why a request was refused authentication (401, or 403 for `insufficient_scope`). */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{
  /** A human-readable reason, sent as `error_description`. */
  readonly reason: string
  /** The RFC 6750 error code (default `invalid_token`). */
  readonly error?: "invalid_request" | "invalid_token" | "insufficient_scope"
  /** The scope the request needs, when it lacks one. */
  readonly scope?: string
}> {}

/** Authenticates one HTTP request: the verified identity, `undefined` for an anonymous request, or a refusal. */
export type Authenticate = (request: RequestHead) => Effect.Effect<Transport.AuthInfo | undefined, Unauthorized>

/** What the endpoint reads of an HTTP request, whichever server carries it. */
export interface RequestHead {
  /** The method, upper case. */
  readonly method: string
  /** The path and query. */
  readonly url: string
  /** The headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The peer's IP address, when the server knows it. */
  readonly remoteAddress?: string | undefined
}

/** The request body was larger than the endpoint accepts (answered 413). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The request body could not be read (the client went away, or sent something that is not a body). */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}

/** An HTTP request as the endpoint reads it: its head, and its body as text on demand. */
export interface Incoming extends RequestHead {
  /** Reads the whole body as UTF-8, refusing one larger than `limit` bytes. */
  readonly readText: (limit: number) => Effect.Effect<string, BodyTooLarge | BodyUnreadable>
}

/** An answer of the endpoint, for the server adapter to write. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The `Content-Type` of the body, when there is one. */
  readonly contentType?: string
  /** A whole body, or an SSE stream that the adapter writes as it comes, or none. */
  readonly body?: string | Stream.Stream<Uint8Array>
}

/** OAuth 2.0 protected-resource metadata (RFC 9728), served at `/.well-known/oauth-protected-resource`. */
export interface ProtectedResourceMetadata {
  /** The resource identifier: the MCP endpoint's absolute URL. */
  readonly resource: string
  /** The authorization servers that issue tokens for it. */
  readonly authorizationServers: ReadonlyArray<string>
  /** The scopes it understands. */
  readonly scopesSupported?: ReadonlyArray<string>
  /** A human-readable name. */
  readonly resourceName?: string
  /** Where its documentation lives. */
  readonly resourceDocumentation?: string
}

/** How the endpoint behaves. */
export interface Options {
  /** The endpoint's path (default `/mcp`). */
  readonly path?: string
  /** `auto` (default): JSON unless something related precedes the response; `json`; or always `sse`. */
  readonly responseMode?: "auto" | "json" | "sse"
  /** Whether GET opens the standalone SSE stream (default true; false answers 405). */
  readonly standaloneSse?: boolean
  /** Whether SSE streams are resumable with `Last-Event-ID` (default true: the EventStore in context, else in memory). */
  readonly resumable?: boolean
  /** A session with no request for this long is ended (default 30 minutes). */
  readonly sessionIdleTimeout?: Duration.DurationInput
  /** At most this many sessions, legacy ones too; the stalest idle one makes room, else 503 (default 10,000). */
  readonly maxSessions?: number
  /** At most this many sessions of one client; its stalest idle one makes room, else 429 (default 1,000). */
  readonly maxSessionsPerClient?: number
  /** Names a request's client for `maxSessionsPerClient` (default its address, IPv6 by /64; undefined: no bound). */
  readonly clientKey?: (request: RequestHead) => string | undefined
  /** The interval of SSE keep-alive comments (default 15 s). */
  readonly keepAliveInterval?: Duration.DurationInput
  /** The `retry` the priming event suggests (default 1 s). */
  readonly retryInterval?: Duration.DurationInput
  /**
   * SSE polling (2025-11-25 sessions, resumable streams): each SSE connection is closed after this long without
   * ending its stream, and the client reconnects with `Last-Event-ID` after `retry` (default: never).
   */
  readonly sseConnectionLifetime?: Duration.DurationInput
  /** The largest request body accepted, in bytes (default 4 MiB); larger ones get 413. */
  readonly maxBodySize?: number
  /** Accepted `Host` values, with or without a port (default: localhost, 127.0.0.1, [::1], any port). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Accepted `Origin` values, exactly (default: a bare http(s) origin whose host is a localhost name). */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** DNS-rebinding protection: Host and Origin checks (default true). */
  readonly dnsRebindingProtection?: boolean
  /** Authenticates every request; the identity reaches handlers as `RequestContext.auth`. */
  readonly authenticate?: Authenticate
  /** Serves RFC 9728 metadata and names it in `WWW-Authenticate`. */
  readonly protectedResource?: ProtectedResourceMetadata
  /** Also serves the deprecated HTTP+SSE transport (2024-11-05) on its two endpoints (default off). */
  readonly legacySse?: boolean | {
    /** The SSE endpoint (default `/sse`). */
    readonly ssePath?: string
    /** The message endpoint (default `/messages`). */
    readonly messagesPath?: string
  }
}

/** The names a local server answers to by default. */
export const localHosts: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/** An authentication hook for `Authorization: Bearer <token>` (requests without a token are refused). */
export const bearer =
  (verify: (token: string) => Effect.Effect<Transport.AuthInfo, Unauthorized>): Authenticate => (request) => {
    const header = request.headers["authorization"]
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    return match === null
      ? Effect.fail(new Unauthorized({ reason: "A bearer token is required", error: "invalid_request" }))
      : verify(match[1]!)
  }

// ---------- internals ----------

interface Session {
  readonly id: string
  readonly scope: Scope.CloseableScope
  readonly incoming: Transport.Inbound
  readonly standalone: Outbox.OutStream
  /** Live POST streams by key. */
  readonly streams: Map<string, Outbox.OutStream>
  /** The POST stream of each request in flight. */
  readonly routes: Map<JsonRpc.RequestId, Outbox.OutStream>
  /**
   * Ids cancelled while no request of theirs was in flight (the newest {@link maxCancelledEarly}): a cancellation
   * travels on a POST of its own, so it can overtake its request; the request is cancelled when it arrives.
   */
  readonly cancelledEarly: Set<JsonRpc.RequestId>
  revision: string | undefined
  initializeId: JsonRpc.RequestId | undefined
  nextStream: number
  lastActivity: number
  active: number
  closed: boolean
  /** The authenticated client that created the session: only it may use the session. */
  readonly owner: string | undefined
  /** Its place among the server's sessions (the session limits). */
  readonly slot: Slot
  /** Its connection's live counts (handlers running, server→client requests pending), once it is served. */
  counts: McpServer.ConnectionCounts | undefined
}

/** A session (of either transport) as the session limits see it, and how to end it. */
interface Slot extends SessionLimits.Member {
  readonly close: Effect.Effect<void>
}

/** How many ids cancelled before their request arrived a session remembers (ids are never reused in a session). */
const maxCancelledEarly = 1_024

const sseHeaders = {
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no"
}

const jsonResponse = (status: number, body: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers,
  contentType: "application/json",
  body
})

const emptyReply = (status: number): Reply => ({ status, headers: {} })

const sseReply = (body: Stream.Stream<Uint8Array>, headers: Record<string, string>): Reply => ({
  status: 200,
  headers,
  contentType: "text/event-stream",
  body
})

const httpError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  jsonResponse(status, Wire.errorBody(null, code, message), headers)

const unsupportedMediaType = httpError(415, -32000, "Unsupported Media Type: Content-Type must be application/json")

const notAcceptable = httpError(
  406,
  -32000,
  "Not Acceptable: the client must accept application/json or text/event-stream"
)

const notAcceptableStream = httpError(406, -32000, "Not Acceptable: the client must accept text/event-stream")

/** Codes that 2026-07-28 answers with an HTTP error status (when the answer is a JSON body). */
const statusOfError = (code: unknown): number =>
  code === -32601 ? 404 : code === -32022 || code === -32021 || code === -32020 || code === -32600 ||
      code === -32700
    ? 400
    : 200

/** A stateless request waiting on the shared connection: where its messages go, and the id its client gave it. */
interface StatelessRoute {
  readonly stream: Outbox.OutStream
  readonly clientId: JsonRpc.RequestId
  readonly as: "auto" | "json" | "sse"
}

const errorCode = (message: Transport.Outgoing | undefined): unknown =>
  message !== undefined && !Array.isArray(message) && "error" in message ? message.error.code : undefined

const responseIds = (message: Transport.Outgoing): ReadonlyArray<JsonRpc.RequestId> => {
  const items: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
  const ids: Array<JsonRpc.RequestId> = []
  for (const m of items) if (Wire.isResponse(m) && m.id !== null) ids.push(m.id)
  return ids
}

const randomSessionId = (): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16))
  let hex = ""
  for (const b of bytes) hex += b.toString(16).padStart(2, "0")
  return hex
}

/** Reads a platform request's body whole, refusing one larger than `limit` bytes. */
const readPlatformBody = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    const length = request.headers["content-length"]
    const declared = length === undefined ? Number.NaN : Number(length)
    if (declared > limit) return yield* new BodyTooLarge({ limit })
    // A declared length is all the body can be: read it whole (reading it as a Stream costs far more per request).
    if (Number.isFinite(declared)) return yield* request.text
    const chunks: Array<Uint8Array> = []
    let size = 0
    // Past the limit the rest is read and dropped (up to a bound), so that the 413 reaches the client
    // instead of a reset connection.
    yield* request.stream.pipe(
      Stream.runForEach((chunk) => {
        size += chunk.length
        if (size > limit * 4 + 1024 * 1024) return new BodyTooLarge({ limit })
        if (size <= limit) chunks.push(chunk)
        return Effect.void
      })
    )
    if (size > limit) return yield* new BodyTooLarge({ limit })
    const all = new Uint8Array(size)
    let at = 0
    for (const c of chunks) {
      all.set(c, at)
      at += c.length
    }
    return new TextDecoder().decode(all)
  }).pipe(Effect.catchTag("RequestError", (e) => new BodyUnreadable({ cause: e })))

/** A platform request as the endpoint reads it. */
const fromPlatform = (request: HttpServerRequest.HttpServerRequest): Incoming => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  readText: (limit) => readPlatformBody(request, limit)
})

/** A reply as a platform response. */
const toPlatform = (reply: Reply): HttpServerResponse.HttpServerResponse => {
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

/** Builds the request handler of the MCP endpoint; sessions live in the current Scope. */
const makeHandler = (options: Options) =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const maxBatchSize = server.options.maxBatchSize ?? McpServer.defaultMaxBatchSize
    const rootScope = yield* Effect.scope
    const configuredStore = yield* Effect.serviceOption(EventStore.EventStore)
    const store = options.resumable === false
      ? undefined
      : Option.getOrElse(configuredStore, () => EventStore.makeMemory())
    const mode = options.responseMode ?? "auto"
    const standaloneSse = options.standaloneSse ?? true
    const idleMs = Duration.toMillis(options.sessionIdleTimeout ?? Duration.minutes(30))
    const maxSessions = options.maxSessions ?? 10_000
    const keepAlive = Duration.decode(options.keepAliveInterval ?? Duration.seconds(15))
    const retryMs = Duration.toMillis(options.retryInterval ?? Duration.seconds(1))
    const lifetime = options.sseConnectionLifetime === undefined
      ? undefined
      : Duration.decode(options.sseConnectionLifetime)
    const maxBody = options.maxBodySize ?? 4 * 1024 * 1024
    const protect = options.dnsRebindingProtection ?? true
    const allowedHosts = (options.allowedHosts ?? localHosts).map((h) => h.toLowerCase())
    const sessions = new Map<string, Session>()
    const limits = SessionLimits.make<Slot>({
      maxSessions,
      maxSessionsPerClient: options.maxSessionsPerClient ?? SessionLimits.defaultPerClient(maxSessions)
    })
    const clientOf = (request: RequestHead) =>
      options.clientKey !== undefined
        ? options.clientKey(request)
        : request.remoteAddress === undefined
        ? undefined
        : SessionLimits.addressKey(request.remoteAddress)
    /** Admits a new session, ending the idle ones that make its room; or the refusal to answer. */
    const admit = (slot: Slot) =>
      Effect.suspend(() => {
        const admission = limits.admit(slot)
        if (admission._tag === "Refused") return Effect.succeed(httpError(admission.status, -32000, admission.message))
        return Effect.forEach(admission.evicted, (victim) => victim.close, { discard: true }).pipe(
          Effect.zipRight(
            admission.evicted.length === 0
              ? Effect.void
              : Effect.logDebug(`effect-mcp: ended ${admission.evicted.length} idle session(s) to make room`)
          ),
          Effect.as(undefined)
        )
      })
    // POST streams answered in another form than the response mode's, because of what their client accepts.
    const streamModes = new WeakMap<Outbox.OutStream, "json" | "sse">()
    const modeOf = (stream: Outbox.OutStream) => streamModes.get(stream) ?? mode
    // Stateless requests share the server's requestState signer (one key per server, random unless configured),
    // so that a multi-round-trip retry verifies the state an earlier round signed.

    // ---------- 2026-07-28: one connection for every stateless request ----------

    // Stateless requests share one server connection: a connection of their own cost each about 0.4 ms
    // (`scratchpad/stateless-connection-cost.mjs`). It is made here, with the endpoint, so that its fibers run in
    // the endpoint's context, never in the context of whichever request came first. Each request is renumbered on
    // it, so that two clients' ids never meet; its frame carries the client's id for the request context, and its
    // response gets that id back on the way out. The connection is not one of the server's stats: each request
    // counts as one while it waits. It lives in the server's scope, so shutting down ends a long
    // `subscriptions/listen`.
    const statelessConnection = yield* Effect.gen(function*() {
      const incoming = Transport.unsafeMakeInbound()
      const routes = new Map<JsonRpc.RequestId, StatelessRoute>()
      const transport: Transport.TransportService = {
        receive: incoming.receive,
        listen: incoming.listen,
        send: (message, sendOptions) =>
          Effect.suspend(() => {
            // Batches are refused before they get here: a message is a response or a notification.
            if (Array.isArray(message)) return Effect.void
            if (Wire.isResponse(message)) {
              const route = message.id === null ? undefined : routes.get(message.id)
              if (route === undefined || message.id === null) return Effect.void
              routes.delete(message.id)
              route.stream.pending.delete(route.clientId)
              return push(undefined, route.stream, { ...message, id: route.clientId }, true)
            }
            const related = sendOptions?.relatedRequestId
            const route = related === undefined ? undefined : routes.get(related)
            return route === undefined || route.as === "json"
              ? Effect.void
              : push(undefined, route.stream, message, false)
          })
      }
      // If the connection ends (the server shuts down), every request waiting on it ends without a response.
      const unanswered = Effect.suspend(() => {
        const waiting = [...routes.values()]
        routes.clear()
        return Effect.forEach(waiting, (route) => {
          route.stream.pending.clear()
          return Queue.offer(route.stream.queue, { seq: route.stream.nextSeq++, message: [], final: true })
        }, { discard: true })
      })
      const scope = yield* Scope.fork(rootScope, ExecutionStrategy.sequential)
      yield* McpServer.serve.pipe(
        Effect.provideService(McpServer.McpServer, { ...server, track: () => Effect.void }),
        Effect.provideService(Transport.Transport, transport),
        Scope.extend(scope),
        Effect.ensuring(unanswered),
        Effect.forkIn(scope)
      )
      return { incoming, routes, nextId: 0 }
    })

    const metadataUrl = options.protectedResource === undefined ? undefined : (() => {
      const url = new URL(options.protectedResource.resource)
      return `${url.origin}/.well-known/oauth-protected-resource${url.pathname === "/" ? "" : url.pathname}`
    })()

    // ---------- guards ----------

    const hostAllowed = (host: string | undefined) => !protect || Guards.hostAllowed(allowedHosts, host)

    const originAllowed = (origin: string | undefined) =>
      !protect || Guards.originAllowed(localHosts, options.allowedOrigins, origin)

    const unauthorized = (e: Unauthorized) => {
      const error = e.error ?? "invalid_token"
      const parts = [
        `error="${error}"`,
        `error_description="${e.reason.replace(/["\\]/g, "")}"`,
        ...(e.scope === undefined ? [] : [`scope="${e.scope}"`]),
        ...(metadataUrl === undefined ? [] : [`resource_metadata="${metadataUrl}"`])
      ]
      return httpError(error === "insufficient_scope" ? 403 : 401, -32001, e.reason, {
        "www-authenticate": `Bearer ${parts.join(", ")}`
      })
    }

    // ---------- sessions ----------

    const touch = (s: Session) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        s.lastActivity = now
        limits.touch(s.slot)
      })

    /** Whether a POST whose first message is `final` (or not) is answered as JSON rather than as an SSE stream. */
    const answersAsJson = (as: "auto" | "json" | "sse", final: boolean) => as === "json" || (as !== "sse" && final)

    // A message a POST is answered with as JSON (its first, or any in "json" mode) can never be replayed (a JSON
    // answer has no event id), so the store does not keep it.
    const answeredAsJson = (s: Session, target: Outbox.OutStream, seq: number, final: boolean) =>
      target !== s.standalone && (seq === 0 ? answersAsJson(modeOf(target), final) : modeOf(target) === "json")

    const push = (s: Session | undefined, target: Outbox.OutStream, message: Transport.Outgoing, final: boolean) =>
      Effect.gen(function*() {
        const seq = target.nextSeq++
        if (s !== undefined && store !== undefined && !answeredAsJson(s, target, seq, final)) {
          yield* store.append(s.id, target.key, seq, message)
        }
        if (final && s !== undefined && target.attached === 0) s.streams.delete(target.key)
        yield* Outbox.offer(target, { seq, message, final })
      })

    /** Ends a POST stream that will get no response (cancelled, or its session ended). */
    const endStream = (s: Session, target: Outbox.OutStream) =>
      Effect.suspend(() => {
        for (const id of target.pending) s.routes.delete(id)
        target.pending.clear()
        if (target.attached === 0) s.streams.delete(target.key)
        return Queue.offer(target.queue, { seq: target.nextSeq++, message: [], final: true })
      })

    const deliver = (s: Session, message: Transport.Outgoing, related: JsonRpc.RequestId | undefined) =>
      Effect.suspend(() => {
        if (!Array.isArray(message) && Wire.isResponse(message) && message.id === s.initializeId) {
          const version = Wire.record((message as { result?: unknown }).result).protocolVersion
          if (typeof version === "string") s.revision = version
        }
        const ids = responseIds(message)
        let target: Outbox.OutStream | undefined
        for (const id of ids) {
          target = s.routes.get(id)
          if (target !== undefined) break
        }
        if (target === undefined && ids.length === 0 && related !== undefined) {
          const stream = s.routes.get(related)
          if (stream !== undefined && modeOf(stream) !== "json") target = stream
        }
        if (target === undefined) {
          if (ids.length > 0) return Effect.logDebug(`effect-mcp: dropped a response for request ${ids.join(", ")}`)
          target = s.standalone
        }
        for (const id of ids) if (target.pending.delete(id)) s.routes.delete(id)
        const final = target !== s.standalone && ids.length > 0 && target.pending.size === 0
        return push(s, target, message, final)
      })

    const closeSession = (s: Session) =>
      Effect.suspend(() => {
        if (s.closed) return Effect.void
        s.closed = true
        sessions.delete(s.id)
        limits.remove(s.slot)
        return Effect.gen(function*() {
          s.incoming.end()
          yield* Scope.close(s.scope, Exit.void)
          for (const stream of [...s.streams.values()]) yield* endStream(s, stream)
          if (s.standalone.evict !== undefined) yield* Deferred.succeed(s.standalone.evict, undefined)
          if (store !== undefined) yield* store.forget(s.id)
        })
      })

    /** Whether a session may be evicted: initialized, no stream open, nothing in flight, nothing pending. */
    const isIdle = (s: Session) => {
      if (s.closed || s.revision === undefined || s.active > 0 || s.routes.size > 0 || s.standalone.attached > 0) {
        return false
      }
      if (s.counts !== undefined && (s.counts.inFlight() > 0 || s.counts.pending() > 0)) return false
      for (const stream of s.streams.values()) if (stream.attached > 0) return false
      return true
    }

    /** A new session, or the refusal to answer when the session limits leave no room for it. */
    const createSession = (owner: string | undefined, client: string | undefined) =>
      Effect.gen(function*() {
        const id = randomSessionId()
        const scope = yield* Scope.fork(rootScope, ExecutionStrategy.sequential)
        const incoming = yield* Transport.makeInbound
        const now = yield* Clock.currentTimeMillis
        const session: Session = {
          id,
          scope,
          incoming,
          standalone: yield* Outbox.make("g", { sliding: 1024 }),
          streams: new Map(),
          routes: new Map(),
          cancelledEarly: new Set(),
          revision: undefined,
          initializeId: undefined,
          nextStream: 0,
          lastActivity: now,
          active: 0,
          closed: false,
          owner,
          slot: { client, idle: () => isIdle(session), close: Effect.suspend(() => closeSession(session)) },
          counts: undefined
        }
        const transport: Transport.TransportService = {
          receive: incoming.receive,
          listen: incoming.listen,
          send: (message, sendOptions) => deliver(session, message, sendOptions?.relatedRequestId)
        }
        const refused = yield* admit(session.slot)
        if (refused !== undefined) {
          yield* Scope.close(scope, Exit.void)
          return Either.left(refused)
        }
        sessions.set(id, session)
        // The connection's counts tell the session limits whether it is idle.
        const tracked: McpServer.McpServerService = {
          ...server,
          track: (counts) =>
            Effect.suspend(() => {
              session.counts = counts
              return server.track(counts)
            })
        }
        // Served in the session's scope with no fiber of its own; the session ends with `closeSession` (a DELETE, the
        // idle reaper, the session limits, or the server's shutdown), which ends its inbound and closes its scope.
        yield* McpServer.connect.pipe(
          Effect.provideService(McpServer.McpServer, tracked),
          Effect.provideService(Transport.Transport, transport),
          Scope.extend(scope)
        )
        return Either.right(session)
      })

    // Idle sessions are reaped; a session with a request or a stream in flight is never idle.
    const tickMs = Math.min(Math.max(Math.floor(idleMs / 4), 10), 5_000)
    yield* Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const s of [...sessions.values()]) {
        if (s.active > 0 || s.standalone.attached > 0) s.lastActivity = now
        else if (now - s.lastActivity > idleMs) yield* closeSession(s)
      }
    }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(tickMs))), Effect.forkScoped)
    yield* Effect.addFinalizer(() => Effect.forEach([...sessions.values()], closeSession, { discard: true }))

    // ---------- responses ----------

    const eventIdOf = (key: string) => (seq: number) => `${key}.${seq}`

    const primingFor = (revision: string | undefined) =>
      store !== undefined && revision !== undefined && revision >= "2025-11-25" ? retryMs : undefined

    const lifetimeFor = (revision: string | undefined) => primingFor(revision) === undefined ? undefined : lifetime

    /** Answers a POST once its stream has its first item: JSON when that is the final response, else SSE. */
    const answer = (
      s: Session | undefined,
      stream: Outbox.OutStream,
      headers: Record<string, string>,
      onEnd: Effect.Effect<void>,
      jsonStatus: (message: Transport.Outgoing | undefined) => number,
      taken: Outbox.Item | undefined,
      as: "auto" | "json" | "sse" = mode
    ) =>
      Effect.gen(function*() {
        const first = taken !== undefined || as === "sse"
          ? taken
          : yield* Queue.take(stream.queue).pipe(Effect.onInterrupt(() => onEnd))
        // Every request of the POST was cancelled while its session lives: no response comes, so the answer is an
        // SSE stream that ends without an event (a JSON error here would read as the session's end).
        const cancelled = first !== undefined && Outbox.isEndMarker(first.message) && s !== undefined && !s.closed
        if (first !== undefined && !cancelled && answersAsJson(as, first.final)) {
          stream.finalTaken = first.final
          if (s !== undefined && first.final) s.streams.delete(stream.key)
          yield* onEnd
          const message = Outbox.isEndMarker(first.message) ? undefined : first.message
          if (message === undefined) {
            return s === undefined
              ? httpError(503, -32000, "The server is shutting down", headers)
              : httpError(404, -32001, "Session not found", headers)
          }
          return jsonResponse(jsonStatus(message), JSON.stringify(message), headers)
        }
        const body = yield* Outbox.write(stream, {
          eventId: s !== undefined && store !== undefined ? eventIdOf(stream.key) : undefined,
          replay: [],
          first,
          primingRetryMs: s === undefined ? undefined : primingFor(s.revision),
          keepAlive,
          lifetime: s === undefined ? undefined : lifetimeFor(s.revision),
          onEnd: Effect.suspend(() => {
            if (s !== undefined && stream.finalTaken) s.streams.delete(stream.key)
            return onEnd
          })
        })
        return sseReply(body, { ...sseHeaders, ...headers })
      })

    // ---------- handshake eras ----------

    const lookup = (request: Incoming, auth: Transport.AuthInfo | undefined) => {
      const id = request.headers["mcp-session-id"]
      if (id === undefined) {
        return Either.left(httpError(400, -32000, "Bad Request: Mcp-Session-Id header is required"))
      }
      const s = sessions.get(id)
      // A session is bound to the client that created it: to anyone else it does not exist.
      if (s === undefined || s.closed || (s.owner !== undefined && s.owner !== auth?.clientId)) {
        return Either.left(httpError(404, -32001, "Session not found"))
      }
      // Any handshake revision is accepted on a session (the session's own revision governs what it sends), as the
      // official conformance suite and SDKs expect; an unknown value, or the stateless revision, is refused.
      const version = request.headers["mcp-protocol-version"]
      if (version !== undefined && (!Revision.isRevision(version) || Revision.isStateless(version))) {
        return Either.left(
          httpError(400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version} for this session`)
        )
      }
      return Either.right(s)
    }

    const classify = (items: ReadonlyArray<unknown>) =>
      items.every((m) => Wire.isRequest(m) || Wire.isNotification(m) || Wire.isResponse(m))

    const handshakePost = (
      request: Incoming,
      body: unknown,
      auth: Transport.AuthInfo | undefined,
      accept: Media.Accepted
    ) =>
      Effect.gen(function*() {
        const items: ReadonlyArray<unknown> = Array.isArray(body) ? body : [body]
        if (items.length === 0 || !classify(items)) {
          return jsonResponse(
            400,
            Wire.errorBody(
              Array.isArray(body)
                ? null
                : Wire.isId(Wire.record(body).id)
                ? Wire.record(body).id as JsonRpc.RequestId
                : null,
              -32600,
              "Invalid request: not a JSON-RPC message"
            )
          )
        }
        const isInit = Wire.isRequest(body) && body.method === "initialize"
        if (Array.isArray(body) && items.some((m) => Wire.isRequest(m) && m.method === "initialize")) {
          return httpError(400, -32600, "Invalid request: initialize must not be part of a batch")
        }
        let s: Session
        if (isInit && request.headers["mcp-session-id"] === undefined) {
          const created = yield* createSession(auth?.clientId, clientOf(request))
          if (Either.isLeft(created)) return created.left
          s = created.right
        } else {
          const found = lookup(request, auth)
          if (Either.isLeft(found)) return found.left
          s = found.right
        }
        if (Array.isArray(body) && s.revision !== "2025-03-26") {
          return httpError(400, -32600, "Invalid request: JSON-RPC batches are only accepted from 2025-03-26 sessions")
        }
        if (Array.isArray(body) && body.length > maxBatchSize) {
          return httpError(
            400,
            -32600,
            `Invalid request: a batch of ${body.length} messages, more than ${maxBatchSize}`
          )
        }
        const requestIds = items.filter(Wire.isRequest).map((m) => m.id)
        if (requestIds.some((id) => s.routes.has(id))) {
          const id = Array.isArray(body) ? null : requestIds[0]!
          return jsonResponse(
            400,
            Wire.errorBody(id, -32600, "Invalid request: a request with this id is already in flight")
          )
        }
        s.active++
        yield* touch(s)
        const release = Effect.suspend(() => {
          s.active--
          return touch(s)
        })
        const frame = Transport.frame(body, auth === undefined ? undefined : { auth })
        if (requestIds.length === 0) {
          s.incoming.push(frame)
          yield* settleCancellations(s, items)
          yield* release
          return emptyReply(202)
        }
        const stream = yield* Outbox.make(`p${s.nextStream++}`)
        const as = Media.answerAs(accept, mode, false) ?? mode
        if (as !== mode && as !== "auto") streamModes.set(stream, as)
        for (const id of requestIds) {
          stream.pending.add(id)
          s.routes.set(id, stream)
        }
        s.streams.set(stream.key, stream)
        if (isInit) s.initializeId = (body as { readonly id: JsonRpc.RequestId }).id
        s.incoming.push(frame)
        yield* settleCancellations(s, items)
        // A cancellation that overtook its request (on another connection) cancels it now, as if it came after it.
        const overtaken = requestIds.filter((id) => s.cancelledEarly.delete(id)).map((requestId) => ({
          jsonrpc: "2.0" as const,
          method: "notifications/cancelled",
          params: { requestId, reason: "cancelled before the request arrived" }
        }))
        if (overtaken.length > 0) {
          for (const cancel of overtaken) s.incoming.push(Transport.frame(cancel))
          yield* settleCancellations(s, overtaken)
        }
        if (isInit) {
          const first = yield* Queue.take(stream.queue).pipe(Effect.onInterrupt(() => release))
          if (s.revision === undefined) {
            // initialize failed: no session comes of it.
            yield* release
            yield* closeSession(s)
            return jsonResponse(200, JSON.stringify(first.message))
          }
          return yield* answer(s, stream, { "mcp-session-id": s.id }, release, () => 200, first, as)
        }
        return yield* answer(s, stream, { "mcp-session-id": s.id }, release, () => 200, undefined, as)
      })

    /** A cancelled request gets no response: its POST stream ends without one. */
    const settleCancellations = (s: Session, items: ReadonlyArray<unknown>) =>
      Effect.forEach(items, (m) => {
        const r = Wire.record(m)
        if (r.method !== "notifications/cancelled") return Effect.void
        const id = Wire.record(r.params).requestId
        if (!Wire.isId(id)) return Effect.void
        const target = s.routes.get(id)
        if (target === undefined) {
          s.cancelledEarly.add(id)
          if (s.cancelledEarly.size > maxCancelledEarly) {
            s.cancelledEarly.delete(s.cancelledEarly.values().next().value!)
          }
          return Effect.void
        }
        target.pending.delete(id)
        s.routes.delete(id)
        return target.pending.size === 0 ? endStream(s, target) : Effect.void
      }, { discard: true })

    const handshakeGet = (request: Incoming, auth: Transport.AuthInfo | undefined) =>
      Effect.gen(function*() {
        if (!standaloneSse) return httpError(405, -32000, "Method not allowed", { allow: "POST, DELETE" })
        if (!Media.accepted(request.headers["accept"]).sse) return notAcceptableStream
        const found = lookup(request, auth)
        if (Either.isLeft(found)) return found.left
        const s = found.right
        yield* touch(s)
        const headers = { ...sseHeaders, "mcp-session-id": s.id }
        const lastEventId = request.headers["last-event-id"]
        const parsed = lastEventId === undefined ? null : /^([gp]\d*)\.(-?\d+)$/.exec(lastEventId)
        let target = s.standalone
        let replay: ReadonlyArray<EventStore.StoredEvent> = []
        if (parsed !== null && store !== undefined) {
          const key = parsed[1]!
          replay = yield* store.after(s.id, key, Number(parsed[2]))
          const live = key === "g" ? s.standalone : s.streams.get(key)
          if (live !== undefined) target = live
          else {
            // A POST stream that has ended: replay what the client missed, then end.
            target = yield* Outbox.make(key)
            target.finalTaken = true
          }
        }
        const body = yield* Outbox.write(target, {
          eventId: store === undefined ? undefined : eventIdOf(target.key),
          replay,
          first: undefined,
          primingRetryMs: primingFor(s.revision),
          keepAlive,
          lifetime: lifetimeFor(s.revision),
          onEnd: Effect.suspend(() => {
            if (target !== s.standalone && target.finalTaken) s.streams.delete(target.key)
            return touch(s)
          })
        })
        return sseReply(body, headers)
      })

    const handshakeDelete = (request: Incoming, auth: Transport.AuthInfo | undefined) =>
      Effect.gen(function*() {
        const found = lookup(request, auth)
        if (Either.isLeft(found)) return found.left
        yield* closeSession(found.right)
        return emptyReply(200)
      })

    // ---------- 2026-07-28 ----------

    const checkHeaders = (request: Incoming, body: Record<string, unknown>) => {
      const version = request.headers["mcp-protocol-version"]
      const meta = Wire.metaRevision(body)
      if (version === undefined) return "Header mismatch: the MCP-Protocol-Version header is required"
      if (meta !== version) {
        return `Header mismatch: MCP-Protocol-Version header value '${version}' does not match body value '${
          Wire.quote(meta)
        }'`
      }
      if (!Wire.isRequest(body)) return undefined
      const method = request.headers["mcp-method"]
      if (method === undefined) return "Header mismatch: the Mcp-Method header is required"
      if (method !== body.method) {
        return `Header mismatch: Mcp-Method header value '${method}' does not match body value '${
          Wire.quote(body.method)
        }'`
      }
      const field = Wire.namedMethods[body.method]
      if (field === undefined) return undefined
      const raw = request.headers["mcp-name"]
      if (raw === undefined) return `Header mismatch: the Mcp-Name header is required for ${body.method}`
      const name = Wire.decodeHeaderValue(raw)
      if (name === undefined) return "Header mismatch: the Mcp-Name header is not valid Base64"
      const params = Wire.record(Wire.record(body).params)
      const value = params[field]
      if (typeof value !== "string" || name !== value) {
        return `Header mismatch: Mcp-Name header value '${Wire.quote(name)}' does not match body value '${
          Wire.quote(value)
        }'`
      }
      if (body.method !== "tools/call") return undefined
      // Parameters the tool mirrors into Mcp-Param-{Name} headers must be there and match.
      const tool = server.tool(value)
      const mirrored = tool === undefined ? Either.right([]) : ParamHeaders.find(tool.descriptor.inputSchema)
      for (const param of Either.getOrElse(mirrored, () => [])) {
        const expected = ParamHeaders.valueAt(params.arguments, param.path)
        if (expected === undefined) continue
        const raw = request.headers[`mcp-param-${param.name.toLowerCase()}`]
        if (raw === undefined) return `Header mismatch: the Mcp-Param-${param.name} header is required`
        const decoded = Wire.decodeHeaderValue(raw)
        if (decoded === undefined || !ParamHeaders.matches(decoded, expected)) {
          return `Header mismatch: Mcp-Param-${param.name} header value '${raw}' does not match the body`
        }
      }
      return undefined
    }

    const statelessPost = (
      request: Incoming,
      body: unknown,
      auth: Transport.AuthInfo | undefined,
      accept: Media.Accepted
    ) =>
      Effect.gen(function*() {
        if (!Wire.isRecord(body)) {
          return httpError(400, -32600, "Invalid request: JSON-RPC batches are not accepted under 2026-07-28")
        }
        // A request (or what tries to be one: an id and no result) is answered with its id when it can be read; a
        // response or a notification never is.
        const id = !Wire.isResponse(body) && Wire.isId(body.id) ? body.id : null
        const mismatch = checkHeaders(request, body)
        if (mismatch !== undefined) return jsonResponse(400, Wire.errorBody(id, -32020, mismatch))
        if (Wire.isNotification(body)) return emptyReply(202)
        if (!Wire.isRequest(body)) {
          return jsonResponse(400, Wire.errorBody(id, -32600, "Invalid request: only requests are accepted here"))
        }
        const requestId = body.id
        // A listen stream is nothing but notifications: it is SSE whatever the response mode.
        const as = Media.answerAs(accept, mode, body.method === "subscriptions/listen")
        if (as === undefined) return notAcceptableStream
        const shared = statelessConnection
        const wireId = shared.nextId++
        const stream = yield* Outbox.make("r")
        stream.pending.add(requestId)
        shared.routes.set(wireId, { stream, clientId: requestId, as })
        // Counted as a connection of the server while it waits for its response.
        const counted = yield* Scope.make()
        yield* server.track({ inFlight: () => (shared.routes.has(wireId) ? 1 : 0), pending: () => 0 }).pipe(
          Scope.extend(counted)
        )
        // When the answer ends before the response (the client went away), the request is cancelled.
        const end = Effect.suspend(() => {
          if (shared.routes.delete(wireId)) {
            shared.incoming.push(Transport.frame(
              { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: wireId } },
              { revision: Revision.stateless }
            ))
          }
          return Scope.close(counted, Exit.void)
        })
        shared.incoming.push(
          Transport.frame({ ...body, id: wireId }, {
            revision: String(request.headers["mcp-protocol-version"]),
            requestId,
            ...(auth === undefined ? {} : { auth })
          })
        )
        return yield* answer(undefined, stream, {}, end, (m) => statusOfError(errorCode(m)), undefined, as)
      })

    // ---------- the endpoint ----------

    const statelessHeader = (version: string | undefined) =>
      version !== undefined &&
      (Revision.isRevision(version) ? Revision.isStateless(version) : /^\d{4}-\d{2}-\d{2}$/.test(version) &&
        version >= Revision.stateless)

    /** Host, Origin and authentication, for every endpoint. */
    const guard = (request: Incoming) =>
      Effect.gen(function*() {
        if (!hostAllowed(request.headers["host"])) {
          return Either.left(httpError(403, -32000, "Forbidden: invalid Host header"))
        }
        if (!originAllowed(request.headers["origin"])) {
          return Either.left(httpError(403, -32000, "Forbidden: invalid Origin header"))
        }
        if (options.authenticate === undefined) return Either.right(undefined)
        const auth = yield* Effect.either(options.authenticate(request))
        return Either.isLeft(auth) ? Either.left(unauthorized(auth.left)) : Either.right(auth.right)
      })

    /** Reads and parses a POST body. */
    const jsonBody = (request: Incoming) =>
      Effect.gen(function*() {
        const text = yield* Effect.either(request.readText(maxBody))
        if (Either.isLeft(text)) {
          return Either.left(
            text.left._tag === "BodyTooLarge"
              ? httpError(413, -32000, `Payload too large: the limit is ${maxBody} bytes`)
              : httpError(400, -32700, "Parse error: the body could not be read")
          )
        }
        const parsed = Wire.parseJson(text.right)
        return Either.isLeft(parsed)
          ? Either.left(httpError(400, -32700, `Parse error: ${parsed.left}`))
          : Either.right(parsed.right)
      })

    const endpoint = (request: Incoming) =>
      Effect.gen(function*() {
        const auth = yield* guard(request)
        if (Either.isLeft(auth)) return auth.left
        const version = request.headers["mcp-protocol-version"]
        switch (request.method) {
          case "POST": {
            const accept = Media.accepted(request.headers["accept"])
            if (!accept.json && !accept.sse) return notAcceptable
            if (!Media.isJson(request.headers["content-type"])) return unsupportedMediaType
            const parsed = yield* jsonBody(request)
            if (Either.isLeft(parsed)) return parsed.left
            const body = parsed.right
            const stateless = Array.isArray(body)
              ? statelessHeader(version)
              : Wire.record(body).method !== "initialize" &&
                (Wire.metaRevision(body) !== undefined || statelessHeader(version))
            return yield* (stateless
              ? statelessPost(request, body, auth.right, accept)
              : handshakePost(request, body, auth.right, accept))
          }
          case "GET":
            return statelessHeader(version)
              ? httpError(405, -32000, "Method not allowed under 2026-07-28", { allow: "POST" })
              : yield* handshakeGet(request, auth.right)
          case "DELETE":
            return statelessHeader(version)
              ? httpError(405, -32000, "Method not allowed under 2026-07-28", { allow: "POST" })
              : yield* handshakeDelete(request, auth.right)
          default:
            return httpError(405, -32000, "Method not allowed", { allow: "GET, POST, DELETE" })
        }
      })

    // ---------- legacy HTTP+SSE (2024-11-05) ----------

    const legacy = options.legacySse === undefined || options.legacySse === false
      ? undefined
      : options.legacySse === true
      ? {}
      : options.legacySse
    const messagesPath = legacy?.messagesPath ?? "/messages"
    const legacySessions = new Map<string, { readonly incoming: Transport.Inbound }>()

    /** GET: a session lives as long as its SSE stream; the first event names where to POST. */
    const legacyStream = (request: Incoming) =>
      Effect.gen(function*() {
        const auth = yield* guard(request)
        if (Either.isLeft(auth)) return auth.left
        if (!Media.accepted(request.headers["accept"]).sse) return notAcceptableStream
        // A legacy session lives as long as its stream, which is open: it counts, but is never idle.
        const slot: Slot = { client: clientOf(request), idle: () => false, close: Effect.void }
        const refused = yield* admit(slot)
        if (refused !== undefined) return refused
        const id = randomSessionId()
        const incoming = yield* Transport.makeInbound
        const outgoing = yield* Queue.unbounded<Transport.Outgoing>()
        const scope = yield* Scope.fork(rootScope, ExecutionStrategy.sequential)
        legacySessions.set(id, { incoming })
        const transport: Transport.TransportService = {
          receive: incoming.receive,
          listen: incoming.listen,
          send: (message) => Queue.offer(outgoing, message).pipe(Effect.asVoid)
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
          legacySessions.delete(id)
          limits.remove(slot)
          incoming.end()
          return Scope.close(scope, Exit.void)
        })
        const events = Stream.concat(
          Stream.make(Sse.endpoint(`${messagesPath}?sessionId=${id}`)),
          Stream.fromQueue(outgoing).pipe(Stream.map((m) => Sse.event(undefined, m)))
        )
        const ticks = Stream.fromSchedule(Schedule.spaced(keepAlive)).pipe(Stream.as(Sse.keepAlive))
        const body = Stream.merge(events, ticks, { haltStrategy: "left" }).pipe(Stream.ensuring(end))
        return sseReply(body, sseHeaders)
      })

    /** POST: a message for the session named in the query; its answer goes on that session's stream. */
    const legacyMessage = (request: Incoming) =>
      Effect.gen(function*() {
        const auth = yield* guard(request)
        if (Either.isLeft(auth)) return auth.left
        const id = new URL(request.url, "http://localhost").searchParams.get("sessionId")
        const s = id === null ? undefined : legacySessions.get(id)
        if (s === undefined) return httpError(404, -32001, "Session not found")
        if (!Media.isJson(request.headers["content-type"])) return unsupportedMediaType
        const parsed = yield* jsonBody(request)
        if (Either.isLeft(parsed)) return parsed.left
        s.incoming.push(Transport.frame(parsed.right, auth.right === undefined ? undefined : { auth: auth.right }))
        return { status: 202, headers: {}, contentType: "text/plain", body: "Accepted" }
      })

    const routes: Array<Route> = [{ path: options.path ?? "/mcp", method: undefined, handle: endpoint }]
    if (legacy !== undefined) {
      routes.push(
        { path: legacy.ssePath ?? "/sse", method: "GET", handle: legacyStream },
        { path: messagesPath, method: "POST", handle: legacyMessage }
      )
    }
    const metadata = options.protectedResource
    if (metadata !== undefined) {
      const served = Effect.succeed(metadataReply(metadata))
      const handle = () => served
      const suffix = new URL(metadata.resource).pathname
      routes.push({ path: "/.well-known/oauth-protected-resource", method: "GET", handle })
      if (suffix !== "/") routes.push({ path: `/.well-known/oauth-protected-resource${suffix}`, method: "GET", handle })
    }
    return routes
  })

/** One path the endpoint serves. */
interface Route {
  readonly path: string
  /** The one method it answers, or any. */
  readonly method: "GET" | "POST" | undefined
  readonly handle: (request: Incoming) => Effect.Effect<Reply>
}

const metadataReply = (m: ProtectedResourceMetadata): Reply =>
  jsonResponse(
    200,
    JSON.stringify({
      resource: m.resource,
      authorization_servers: m.authorizationServers,
      bearer_methods_supported: ["header"],
      ...(m.scopesSupported === undefined ? {} : { scopes_supported: m.scopesSupported }),
      ...(m.resourceName === undefined ? {} : { resource_name: m.resourceName }),
      ...(m.resourceDocumentation === undefined ? {} : { resource_documentation: m.resourceDocumentation })
    })
  )

const notFound: Reply = { status: 404, headers: {} }

/**
 * The MCP endpoint (and the legacy and metadata endpoints when configured) as one function of a request, for an HTTP
 * server of any kind: routed by path, 404 for any other. Sessions live in the Scope.
 */
export const handler = (
  options: Options = {}
): Effect.Effect<(request: Incoming) => Effect.Effect<Reply>, never, McpServer.McpServer | Scope.Scope> =>
  Effect.map(makeHandler(options), (routes) => {
    const byPath = new Map(routes.map((r) => [r.path, r]))
    const missing = Effect.succeed(notFound)
    return (request) => {
      const query = request.url.indexOf("?")
      const route = byPath.get(query === -1 ? request.url : request.url.slice(0, query))
      return route === undefined || (route.method !== undefined && route.method !== request.method)
        ? missing
        : route.handle(request)
    }
  })

/** The router with the MCP endpoint (and the protected-resource metadata when configured); sessions live in the Scope. */
export const router = (
  options: Options = {}
): Effect.Effect<HttpRouter.HttpRouter, never, McpServer.McpServer | Scope.Scope> =>
  Effect.map(makeHandler(options), (routes) =>
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
    ))

/** Serves the MCP endpoint on the current HttpServer, for the McpServer in context. */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpServer.McpServer | HttpServer.HttpServer> =>
  Layer.unwrapScoped(Effect.map(router(options), (routes) => HttpServer.serve(routes)))
