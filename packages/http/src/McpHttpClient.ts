/**
 * The Streamable HTTP client transport: every message is a POST that accepts JSON or SSE; the
 * standalone GET stream carries the server's own messages; cut streams are resumed with
 * `Last-Event-ID` after a backoff; the session id and negotiated revision travel on every request
 * of a handshake session, and 2026-07-28 requests carry `MCP-Protocol-Version`, `Mcp-Method`
 * and `Mcp-Name` instead (cancelling one closes its response stream). When the server forgets
 * the session (404), the transport re-initializes transparently and resends what the server never
 * saw; the session is ended with DELETE when the scope closes. A server that refuses the first POST
 * with 400/404/405 and no MCP error is tried as a deprecated HTTP+SSE (2024-11-05) server. A request that gets no
 * answer fails with what happened (see `internal/clientFailure.ts`): `TransportError` (the network, a cut stream, an
 * HTTP error without a JSON-RPC error), `Unauthorized` (401), `Forbidden` (403), `SessionExpired` (404 on a session
 * that could not be renewed); a JSON-RPC error in an HTTP error answer is the McpError of its code.
 */
import { Transport } from "@effect-mcp/core"
import { type JsonRpc, Revision } from "@effect-mcp/schema"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { createParser } from "eventsource-parser"
import * as ClientFailure from "./internal/clientFailure.js"
import * as ParamHeaders from "./internal/paramHeaders.js"
import * as Wire from "./internal/wire.js"

/** The server no longer knows our session (HTTP 404) and re-initializing failed (`Transport.SessionExpired`). */
export const SessionExpired = Transport.SessionExpired

/** The server no longer knows our session (HTTP 404) and re-initializing failed (`Transport.SessionExpired`). */
export type SessionExpired = Transport.SessionExpired

/** How the transport reaches its server. */
export interface Options {
  /** The MCP endpoint. */
  readonly url: string | URL
  /** Headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>
  /** Supplies the bearer token of every request (`undefined`: none). */
  readonly token?: Effect.Effect<string | undefined>
  /** Whether to open the standalone GET stream after the handshake (default true; 405 is tolerated). */
  readonly standaloneStream?: boolean
  /** The delays between reconnection attempts of a cut SSE stream (default: exponential from 100 ms, 8 tries). */
  readonly reconnect?: Schedule.Schedule<unknown, unknown>
  /** Whether closing the scope ends the session with DELETE (default true). */
  readonly terminateOnClose?: boolean
  /** Falls back to the deprecated HTTP+SSE transport when the first POST gets 400, 404 or 405 (default true). */
  readonly legacyFallback?: boolean
  /**
   * The largest message accepted from the server, in bytes (default 64 MiB): a JSON answer or an SSE event past it
   * is not read further, and the request it answers fails at once with a TransportError.
   */
  readonly maxMessageBytes?: number
}

const defaultMaxMessageBytes = 64 * 1024 * 1024

/** One HTTP request of the transport. */
export interface OutgoingRequest {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: string
  /** The headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string>>
  /** A JSON body (POST). */
  readonly body?: string
}

/** One HTTP response, as the transport reads it. */
export interface IncomingResponse {
  readonly status: number
  /** The headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The whole body as UTF-8 text. */
  readonly text: Effect.Effect<string, ExchangeFailed>
  /** The body as it arrives. */
  readonly stream: Stream.Stream<Uint8Array, ExchangeFailed>
}

/** An HTTP exchange failed: no response came, or its body could not be read. */
export class ExchangeFailed extends Data.TaggedError("ExchangeFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

/**
 * Sends one request and succeeds with its response once its head arrived. Interrupting it (or the reading of the
 * body) aborts the request; a body nobody began to read is dropped when the fiber that sent the request ends.
 */
export type Execute = (request: OutgoingRequest) => Effect.Effect<IncomingResponse, ExchangeFailed>

/** Exchanges over an `@effect/platform` HttpClient. */
export const platformExecute = (client: HttpClient.HttpClient): Execute => (request) => {
  const base = request.method === "GET"
    ? HttpClientRequest.get(request.url)
    : request.method === "POST"
    ? HttpClientRequest.post(request.url)
    : HttpClientRequest.del(request.url)
  const withHeaders = HttpClientRequest.setHeaders(base, request.headers)
  const full = request.body === undefined
    ? withHeaders
    : HttpClientRequest.bodyText(withHeaders, request.body, "application/json")
  const failed = (e: HttpClientError.HttpClientError) => new ExchangeFailed({ reason: e.message, cause: e })
  return client.execute(full).pipe(
    Effect.mapError(failed),
    Effect.map((response): IncomingResponse => ({
      status: response.status,
      headers: response.headers,
      text: Effect.mapError(response.text, failed),
      stream: Stream.mapError(response.stream, failed)
    }))
  )
}

/** Requests that may be resent when their fate is unknown (the session died while they were in flight). */
const idempotent = new Set([
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "server/discover"
])

interface SseEvent {
  readonly id: string | undefined
  readonly event: string | undefined
  readonly data: string
}

type Chunk = { readonly _tag: "Event"; readonly event: SseEvent } | { readonly _tag: "Retry"; readonly ms: number }

/** The answer is larger than the client accepts. */
const tooLarge = (maxBytes: number) =>
  new Failed({ reason: `the server's message is larger than ${maxBytes} bytes (maxMessageBytes)`, tooLarge: true })

/** SSE events of a body, parsed by eventsource-parser; an event that grows past `maxBytes` fails the stream. */
const sseEvents = <E>(body: Stream.Stream<Uint8Array, E>, maxBytes: number): Stream.Stream<Chunk, E | Failed> =>
  Stream.suspend(() => {
    const decoder = new TextDecoder()
    let out: Array<Chunk> = []
    // Bytes fed since the last complete event: what the parser may be holding.
    let held = 0
    const parser = createParser({
      onEvent: (e) => void out.push({ _tag: "Event", event: { id: e.id, event: e.event, data: e.data } }),
      onRetry: (ms) => void out.push({ _tag: "Retry", ms })
    })
    return body.pipe(
      Stream.mapConcatEffect((bytes): Effect.Effect<Array<Chunk>, Failed> => {
        held += bytes.length
        parser.feed(decoder.decode(bytes, { stream: true }))
        const chunk = out
        out = []
        if (chunk.length > 0) held = 0
        // An event that arrived whole in one chunk is measured by its data.
        const whole = chunk.some((c) => c._tag === "Event" && c.event.data.length > maxBytes)
        return held > maxBytes || whole ? Effect.fail(tooLarge(maxBytes)) : Effect.succeed(chunk)
      })
    )
  })

/** A body as text, read no further than `maxBytes`. */
const boundedText = (
  response: IncomingResponse,
  maxBytes: number
): Effect.Effect<string, Failed> => {
  const length = response.headers["content-length"]
  const declared = length === undefined ? Number.NaN : Number(length)
  if (declared > maxBytes) return Effect.fail(tooLarge(maxBytes))
  // A declared length is all the body can be: read it whole (reading it as a Stream costs far more per answer).
  if (Number.isFinite(declared)) return Effect.mapError(response.text, (e) => new Failed({ reason: e.reason }))
  return Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let size = 0
    return response.stream.pipe(
      Stream.mapError((e) => new Failed({ reason: e.reason })),
      Stream.runForEach((bytes) => {
        size += bytes.length
        if (size > maxBytes) return Effect.fail(tooLarge(maxBytes))
        parts.push(bytes)
        return Effect.void
      }),
      Effect.map(() => Buffer.concat(parts).toString("utf8"))
    )
  })
}

const statelessRevision = (message: unknown): string | undefined => {
  const rev = Wire.metaRevision(message)
  return typeof rev === "string" && (Revision.isRevision(rev) ? Revision.isStateless(rev) : rev >= Revision.stateless)
    ? rev
    : undefined
}

/** A failure of one exchange, before or while reading its answer. */
class Failed extends Data.TaggedError("Failed")<{
  readonly reason: string
  readonly cause?: unknown
  readonly status?: number
  /** The answer passed `maxMessageBytes`: resuming its stream would only meet it again. */
  readonly tooLarge?: boolean
}> {}

/** Makes the transport over the HttpClient in context; it lives (and its session with it) until the scope closes. */
export const make = (
  options: Options
): Effect.Effect<Transport.TransportService, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.flatMap(HttpClient.HttpClient, (client) => makeWith(options, platformExecute(client)))

/** Makes the transport over any HTTP exchange function; it lives (and its session with it) until the scope closes. */
export const makeWith = (
  options: Options,
  sendRequest: Execute
): Effect.Effect<Transport.TransportService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const url = typeof options.url === "string" ? options.url : options.url.toString()
    const maxMessageBytes = options.maxMessageBytes ?? defaultMaxMessageBytes
    const incoming = yield* Effect.acquireRelease(Transport.makeInbound, (inbound) => Effect.sync(inbound.end))
    const exchanges = yield* FiberMap.make<JsonRpc.RequestId>()
    const reconnect = options.reconnect ??
      Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(8)))
    let sessionId: string | undefined
    let protocolVersion: string | undefined
    let initialize: JsonRpc.Request | undefined
    let listening = false
    let reinitializing: Effect.Effect<void, SessionExpired> | undefined
    let nextInternalId = 0
    /** Ids of requests whose response arrived (the exchange stops resuming once its id is here). */
    const answered = new Set<JsonRpc.RequestId>()
    /** Requests sent statelessly (2026-07-28), by id, with their method; cancelling one is closing its stream. */
    const stateless = new Map<JsonRpc.RequestId, string>()
    /** The `x-mcp-header` parameters of each tool, from the last stateless `tools/list`. */
    const mirrored = new Map<string, ReadonlyArray<ParamHeaders.ParamHeader>>()

    /** A 2026 `tools/list` result without the tools whose `x-mcp-header` annotations are invalid. */
    const screenTools = (response: Record<string, unknown>) =>
      Effect.gen(function*() {
        const result = Wire.record(response.result)
        if (!Array.isArray(result.tools)) return response
        const kept: Array<unknown> = []
        for (const tool of result.tools) {
          const name = Wire.quote(Wire.record(tool).name)
          const found = ParamHeaders.find(Wire.record(tool).inputSchema)
          if (Either.isLeft(found)) {
            yield* Effect.logWarning(`effect-mcp: ignoring tool ${name}: ${found.left}`)
            continue
          }
          mirrored.set(name, found.right)
          kept.push(tool)
        }
        return { ...response, result: { ...result, tools: kept } }
      })
    /** Responses to our internal requests (re-initialization) go here instead of to the engine. */
    const internal = new Map<JsonRpc.RequestId, (message: Record<string, unknown>) => void>()

    // ---------- what arrives ----------

    const receive = (message: unknown): Effect.Effect<void> =>
      Effect.suspend(() => {
        const items: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
        let forward = true
        for (const m of items) {
          if (!Wire.isResponse(m) || m.id === null) continue
          const hook = internal.get(m.id)
          if (hook !== undefined) {
            internal.delete(m.id)
            hook(m as Record<string, unknown>)
            forward = false
            continue
          }
          if (FiberMap.unsafeHas(exchanges, m.id)) answered.add(m.id)
          if (initialize !== undefined && m.id === initialize.id) {
            const version = Wire.record((m as { result?: unknown }).result).protocolVersion
            if (typeof version === "string") protocolVersion = version
          }
        }
        if (!forward) return Effect.void
        const single = Wire.isResponse(message) && message.id !== null ? message.id : undefined
        const screened = single !== undefined && stateless.get(single) === "tools/list"
          ? screenTools(message as Record<string, unknown>)
          : Effect.succeed(message)
        return Effect.flatMap(screened, (m) =>
          Effect.sync(() => {
            incoming.push(Transport.frame(m))
          }))
      })

    const receiveText = (data: string) => {
      const parsed = Wire.parseJson(data)
      return Either.isRight(parsed)
        ? receive(parsed.right)
        : Effect.sync(() => {
          incoming.push(Transport.malformed(parsed.left))
        })
    }

    // ---------- requests ----------

    const headersFor = (message: unknown, withSession: boolean) =>
      Effect.gen(function*() {
        const token = options.token === undefined ? undefined : yield* options.token
        const headers: Record<string, string> = {
          ...options.headers,
          accept: "application/json, text/event-stream"
        }
        if (token !== undefined) headers["authorization"] = `Bearer ${token}`
        const rev = statelessRevision(message)
        if (rev !== undefined) {
          const m = Wire.record(message)
          headers["mcp-protocol-version"] = rev
          if (typeof m.method === "string") {
            headers["mcp-method"] = m.method
            const field = Wire.namedMethods[m.method]
            const value = field === undefined ? undefined : Wire.record(m.params)[field]
            if (value !== undefined) headers["mcp-name"] = Wire.encodeHeaderValue(String(value))
            if (m.method === "tools/call") {
              for (const param of mirrored.get(String(value)) ?? []) {
                const mirroredValue = ParamHeaders.valueAt(Wire.record(m.params).arguments, param.path)
                const header = mirroredValue === undefined ? undefined : ParamHeaders.headerValue(mirroredValue)
                if (header !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = header
              }
            }
          }
          return headers
        }
        if (withSession && sessionId !== undefined) headers["mcp-session-id"] = sessionId
        if (protocolVersion !== undefined) headers["mcp-protocol-version"] = protocolVersion
        return headers
      })

    const execute = (request: OutgoingRequest) =>
      sendRequest(request).pipe(Effect.mapError((e) => new Failed({ reason: e.reason, cause: e })))

    const postRaw = (message: unknown, withSession = true) =>
      Effect.flatMap(headersFor(message, withSession), (headers) =>
        execute({ method: "POST", url, headers, body: JSON.stringify(message) }))

    /** Reads an answer (JSON or SSE) into `onMessage`; returns the last event id seen, and the server's retry. */
    const readAnswer = (
      response: IncomingResponse,
      onText: (data: string) => Effect.Effect<void>,
      cursor: { lastEventId: string | undefined; retryMs: number | undefined }
    ): Effect.Effect<void, Failed> => {
      const type = response.headers["content-type"] ?? ""
      if (type.includes("text/event-stream")) {
        return sseEvents(response.stream, maxMessageBytes).pipe(
          Stream.runForEach((chunk) => {
            if (chunk._tag === "Retry") {
              return Effect.sync(() =>
                void (cursor.retryMs = chunk.ms)
              )
            }
            if (chunk.event.id !== undefined) cursor.lastEventId = chunk.event.id
            return chunk.event.data === "" ? Effect.void : onText(chunk.event.data)
          }),
          Effect.mapError((e) =>
            e._tag === "Failed" ? e : new Failed({ reason: `the SSE stream failed: ${e.message}` })
          )
        )
      }
      return boundedText(response, maxMessageBytes).pipe(
        Effect.flatMap((text) => (text.trim() === "" ? Effect.void : onText(text)))
      )
    }

    /** Resumes a cut stream with GET and `Last-Event-ID` until `done()` or the schedule gives up. */
    const resume = (
      cursor: { lastEventId: string | undefined; retryMs: number | undefined },
      done: () => boolean
    ): Effect.Effect<boolean, Failed> =>
      Effect.gen(function*() {
        const driver = yield* Schedule.driver(reconnect)
        let failed = false
        while (!done()) {
          if (cursor.lastEventId === undefined) return false
          // After a connection the server closed on purpose, its `retry` is the whole wait; after a failed
          // attempt, the backoff schedule decides (and bounds the attempts).
          if (failed || cursor.retryMs === undefined) {
            const next = yield* Effect.either(driver.next(undefined))
            if (Either.isLeft(next)) return false
          }
          if (cursor.retryMs !== undefined) yield* Effect.sleep(Duration.millis(cursor.retryMs))
          failed = true
          const headers = yield* headersFor(undefined, true)
          const response = yield* Effect.either(execute({
            method: "GET",
            url,
            headers: { ...headers, accept: "text/event-stream", "last-event-id": cursor.lastEventId }
          }))
          if (Either.isLeft(response)) continue
          if (response.right.status === 404 && sessionId !== undefined) {
            return yield* new Failed({ reason: "expired", status: 404 })
          }
          if (response.right.status < 200 || response.right.status >= 300) {
            return false
          }
          // A connection the server accepted resets the backoff (a polling server closes them on purpose).
          yield* driver.reset
          failed = false
          yield* Effect.either(readAnswer(response.right, receiveText, cursor))
        }
        return true
      })

    /** Fails our request `id` with what the transport saw instead of an answer (no JSON-RPC error is made up). */
    const fail = (id: JsonRpc.RequestId, failure: Transport.RequestError) =>
      Effect.sync(() => void incoming.push(Transport.failed(id, failure)))

    /** A request that got no answer: the network failed, or its stream ended first. */
    const lost = (id: JsonRpc.RequestId, reason: string, cause?: unknown) =>
      fail(id, new Transport.TransportError(cause === undefined ? { reason } : { reason, cause }))

    const bodyError = ClientFailure.jsonRpcError

    /** Settles request `id` by an HTTP error answer: the server's JSON-RPC error, or what the status means. */
    const errorAnswer = (
      id: JsonRpc.RequestId,
      response: IncomingResponse,
      text: string,
      session: string | undefined
    ) => {
      const meaning = ClientFailure.classify({ status: response.status, headers: response.headers, text }, session)
      return meaning._tag === "JsonRpc"
        ? receive({ ...meaning.body, jsonrpc: "2.0", id })
        : fail(id, meaning.failure)
    }

    /** Lists the tools statelessly on the transport's own account, to learn their `x-mcp-header` parameters. */
    const refreshTools = (meta: unknown) =>
      Effect.gen(function*() {
        let cursor: unknown
        for (let page = 0; page < 100; page++) {
          const id = `effect-mcp-tools-list-${nextInternalId++}`
          let result: Record<string, unknown> | undefined
          internal.set(id, (m) => void (result = m))
          const params = { ...(typeof cursor === "string" ? { cursor } : {}), _meta: meta }
          const response = yield* postRaw({ jsonrpc: "2.0", id, method: "tools/list", params })
          yield* readAnswer(response, receiveText, { lastEventId: undefined, retryMs: undefined }).pipe(
            Effect.ensuring(Effect.sync(() => internal.delete(id)))
          )
          if (result === undefined) return
          yield* screenTools(result)
          cursor = Wire.record(result.result).nextCursor
          if (typeof cursor !== "string") return
        }
      })

    // ---------- the deprecated HTTP+SSE transport (2024-11-05) ----------

    let mode: "probing" | "streamable" | "legacy" = options.legacyFallback === false ? "streamable" : "probing"
    let legacyEndpoint = url

    /** Opens the legacy SSE stream at the URL; true once its `endpoint` event names where to POST. */
    const openLegacy = Effect.gen(function*() {
      const headers = yield* headersFor(undefined, false)
      const response = yield* Effect.either(
        execute({ method: "GET", url, headers: { ...headers, accept: "text/event-stream" } })
      )
      if (Either.isLeft(response) || response.right.status !== 200) return false
      if (!(response.right.headers["content-type"] ?? "").includes("text/event-stream")) return false
      const named = yield* Deferred.make<string>()
      yield* FiberMap.run(
        exchanges,
        "effect-mcp-legacy-stream",
        sseEvents(response.right.stream, maxMessageBytes).pipe(
          Stream.runForEach((chunk) => {
            if (chunk._tag === "Retry") return Effect.void
            if (chunk.event.event === "endpoint") {
              return Deferred.succeed(named, new URL(chunk.event.data.trim(), url).toString())
            }
            return chunk.event.data === "" ? Effect.void : receiveText(chunk.event.data)
          }),
          Effect.ignore,
          // The legacy stream is the connection: when it ends, so does the transport.
          Effect.ensuring(Effect.sync(incoming.end))
        )
      )
      const endpoint = yield* Deferred.await(named).pipe(Effect.timeout(Duration.seconds(10)), Effect.option)
      if (endpoint._tag === "None") return false
      legacyEndpoint = endpoint.value
      mode = "legacy"
      yield* Effect.logDebug(
        `effect-mcp: ${url} speaks the deprecated HTTP+SSE transport; posting to ${legacyEndpoint}`
      )
      return true
    })

    const postLegacy = (message: unknown) =>
      Effect.flatMap(
        headersFor(message, false),
        (headers) => execute({ method: "POST", url: legacyEndpoint, headers, body: JSON.stringify(message) })
      )

    /** Sends over the legacy transport: the answer comes on the stream. */
    const sendLegacy = (message: unknown, id: JsonRpc.RequestId | undefined) =>
      Effect.gen(function*() {
        const response = yield* Effect.either(postLegacy(message))
        if (Either.isLeft(response)) {
          const reason = `the request could not be sent: ${response.left.reason}`
          if (id !== undefined) return yield* lost(id, reason, response.left.cause)
          return yield* new Transport.TransportError({ reason, cause: response.left.cause })
        }
        const status = response.right.status
        if (status >= 200 && status < 300) {
          return
        }
        const text = yield* Effect.orElseSucceed(boundedText(response.right, maxMessageBytes), () => "")
        if (id !== undefined) return yield* errorAnswer(id, response.right, text, undefined)
        return yield* new Transport.TransportError({
          reason: `the server answered HTTP ${status}: ${ClientFailure.preview(text)}`,
          status
        })
      })

    // ---------- sessions ----------

    /** Runs the handshake again with the parameters of the first one, under a new session. */
    const reinitialize = (stale: string): Effect.Effect<void, SessionExpired> =>
      Effect.gen(function*() {
        if (sessionId !== stale) return
        if (reinitializing !== undefined) return yield* reinitializing
        const id = `effect-mcp-reinitialize-${nextInternalId++}`
        const run = Effect.gen(function*() {
          const init = initialize
          if (init === undefined) {
            return yield* new SessionExpired({ sessionId: stale, reason: "no handshake to repeat" })
          }
          let result: Record<string, unknown> | undefined
          internal.set(id, (m) => void (result = m))
          sessionId = undefined
          const response = yield* postRaw({ ...init, id }, false)
          const fresh = response.headers["mcp-session-id"]
          if (response.status !== 200) {
            const text = yield* Effect.orElseSucceed(boundedText(response, maxMessageBytes), () => "")
            return yield* new SessionExpired({
              sessionId: stale,
              reason: `the server refused to initialize again (HTTP ${response.status}: ${ClientFailure.preview(text)})`
            })
          }
          const cursor = { lastEventId: undefined, retryMs: undefined }
          yield* readAnswer(response, receiveText, cursor)
          const ok = result !== undefined && "result" in result &&
            Wire.record(result.result).protocolVersion === protocolVersion
          if (!ok) {
            return yield* new SessionExpired({ sessionId: stale, reason: "the server refused to initialize again" })
          }
          sessionId = fresh
          const ack = yield* postRaw({ jsonrpc: "2.0", method: "notifications/initialized" })
          if (ack.status >= 300) {
            return yield* new SessionExpired({
              sessionId: stale,
              reason: `notifications/initialized got ${ack.status}`
            })
          }
          yield* Effect.logDebug(`effect-mcp: session ${stale} expired; continued as ${fresh ?? "(no session)"}`)
          if (listening) yield* startListening
        }).pipe(
          Effect.catchTag("Failed", (e) => new SessionExpired({ sessionId: stale, reason: e.reason, cause: e.cause })),
          // Still the stale session: the next request that meets its 404 tries to renew it again.
          Effect.tapError(() => Effect.sync(() => void (sessionId ??= stale))),
          Effect.ensuring(Effect.sync(() => {
            reinitializing = undefined
            internal.delete(id)
          }))
        )
        const cached = yield* Effect.cached(run)
        reinitializing = cached
        return yield* cached
      })

    /** The standalone GET stream: opened once after the handshake, reconnected with backoff. */
    const listen = Effect.gen(function*() {
      const driver = yield* Schedule.driver(reconnect)
      const cursor = { lastEventId: undefined as string | undefined, retryMs: undefined as number | undefined }
      let cursorSession = sessionId
      while (true) {
        const stale = sessionId
        // Event ids belong to a session: a new session starts its stream afresh.
        if (stale !== cursorSession) {
          cursor.lastEventId = undefined
          cursorSession = stale
        }
        const headers = yield* headersFor(undefined, true)
        const response = yield* Effect.either(execute({
          method: "GET",
          url,
          headers: {
            ...headers,
            accept: "text/event-stream",
            ...(cursor.lastEventId === undefined ? {} : { "last-event-id": cursor.lastEventId })
          }
        }))
        if (Either.isRight(response)) {
          const status = response.right.status
          if (status === 405) return
          if (status === 404 && stale !== undefined) {
            // The session is gone: continue under a new one (or stop if the server will not have us).
            if (Either.isLeft(yield* Effect.either(reinitialize(stale)))) return
            continue
          }
          if (status >= 200 && status < 300) {
            yield* driver.reset
            yield* Effect.either(readAnswer(response.right, receiveText, cursor))
            // The server closed the stream: its `retry` is the whole wait before the next connection.
            if (cursor.retryMs !== undefined) {
              yield* Effect.sleep(Duration.millis(cursor.retryMs))
              continue
            }
          }
        }
        const next = yield* Effect.either(driver.next(undefined))
        if (Either.isLeft(next)) return
        if (cursor.retryMs !== undefined) yield* Effect.sleep(Duration.millis(cursor.retryMs))
      }
    })

    const listenerKey = "effect-mcp-standalone-stream"
    const startListening = Effect.suspend(() => {
      listening = true
      return FiberMap.run(exchanges, listenerKey, listen, { onlyIfMissing: true }).pipe(Effect.asVoid)
    })

    // ---------- one request's exchange ----------

    const exchange = (request: JsonRpc.Request, rev: string | undefined): Effect.Effect<void> =>
      Effect.gen(function*() {
        const id = request.id
        for (let attempt = 0;; attempt++) {
          const stale = sessionId
          if (mode === "legacy") return yield* Effect.orDie(sendLegacy(request, id))
          const sent = yield* Effect.either(postRaw(request))
          if (Either.isLeft(sent)) {
            return yield* lost(id, `the request could not be sent: ${sent.left.reason}`, sent.left.cause)
          }
          const response = sent.right
          if (response.status === 404 && rev === undefined && stale !== undefined && attempt === 0) {
            // The server never saw this request: continue under a new session and send it again.
            const renewed = yield* Effect.either(reinitialize(stale))
            if (Either.isLeft(renewed)) return yield* fail(id, renewed.left)
            continue
          }
          if (response.status < 200 || response.status >= 300) {
            const text = yield* Effect.orElseSucceed(boundedText(response, maxMessageBytes), () => "")
            const status = response.status
            if (
              mode === "probing" && (status === 400 || status === 404 || status === 405) &&
              bodyError(text) === undefined
            ) {
              // Not a Streamable HTTP server: try the deprecated HTTP+SSE transport at the same URL.
              if (yield* openLegacy) continue
            }
            const code = Wire.record(bodyError(text)?.error).code
            if (rev !== undefined && request.method === "tools/call" && code === -32020 && attempt === 0) {
              // The tool may mirror parameters we have not heard of: learn them from tools/list, then retry once.
              yield* Effect.ignore(refreshTools(Wire.record(request.params)._meta))
              continue
            }
            return yield* errorAnswer(id, response, text, rev === undefined ? stale : undefined)
          }
          mode = "streamable"
          if (request.method === "initialize") {
            const fresh = response.headers["mcp-session-id"]
            if (fresh !== undefined) sessionId = fresh
          }
          const cursor = { lastEventId: undefined as string | undefined, retryMs: undefined as number | undefined }
          const read = yield* Effect.either(readAnswer(response, receiveText, cursor))
          if (answered.has(id)) return
          if (Either.isLeft(read) && read.left.tooLarge === true) return yield* lost(id, read.left.reason)
          const ended = `the response stream ended without a response${
            Either.isLeft(read) ? `: ${read.left.reason}` : ""
          }`
          if (rev !== undefined) return yield* lost(id, ended, Either.isLeft(read) ? read.left.cause : undefined)
          const resumed = yield* Effect.either(resume(cursor, () => answered.has(id)))
          if (Either.isRight(resumed) && resumed.right) return
          if (Either.isLeft(resumed) && stale !== undefined) {
            // The server forgot the session while the answer was on its way: a request that is safe to repeat is
            // sent again under a new session; any other may have run, and fails with the session's end.
            const renewed = idempotent.has(request.method) && attempt === 0
              ? yield* Effect.either(reinitialize(stale))
              : Either.left(
                new SessionExpired({ sessionId: stale, reason: `${ended}, and the server no longer knows the session` })
              )
            if (Either.isRight(renewed)) continue
            return yield* fail(id, renewed.left)
          }
          return yield* lost(id, ended, Either.isLeft(read) ? read.left.cause : undefined)
        }
      }).pipe(Effect.ensuring(Effect.sync(() => {
        answered.delete(request.id)
        stateless.delete(request.id)
      })))

    // ---------- send ----------

    const send = (message: Transport.Outgoing): Effect.Effect<void, Transport.TransportError> =>
      Effect.gen(function*() {
        if (!Array.isArray(message) && Wire.isRequest(message)) {
          const request = message as JsonRpc.Request
          const rev = statelessRevision(request)
          if (rev !== undefined) stateless.set(request.id, request.method)
          if (request.method === "initialize") initialize = request
          answered.delete(request.id)
          yield* FiberMap.run(exchanges, request.id, exchange(request, rev))
          return
        }
        const m = Wire.record(message)
        if (m.method === "notifications/cancelled") {
          const id = Wire.record(m.params).requestId
          if (Wire.isId(id) && stateless.has(id)) {
            // Under 2026-07-28 closing the response stream is the cancellation.
            return yield* FiberMap.remove(exchanges, id)
          }
          // A cancelled request gets no response: stop waiting for (and resuming) its stream.
          if (Wire.isId(id)) yield* FiberMap.remove(exchanges, id)
        }
        if (mode === "legacy") return yield* sendLegacy(message, undefined)
        if (protocolVersion === undefined && sessionId === undefined && stateless.size > 0) return
        const stale = sessionId
        const post = Effect.mapError(
          postRaw(message),
          (e) => new Transport.TransportError({ reason: `the message could not be sent: ${e.reason}`, cause: e.cause })
        )
        let response = yield* post
        if (response.status === 404 && stale !== undefined) {
          yield* reinitialize(stale).pipe(
            Effect.mapError((e) => new Transport.TransportError({ reason: e.message, cause: e }))
          )
          response = yield* post
        }
        if (response.status < 200 || response.status >= 300) {
          const text = yield* Effect.orElseSucceed(boundedText(response, maxMessageBytes), () => "")
          const meaning = ClientFailure.classify({ status: response.status, headers: response.headers, text }, stale)
          const failure = meaning._tag === "Failure" ? meaning.failure : undefined
          return yield* new Transport.TransportError({
            reason: failure?.message ?? `the server answered HTTP ${response.status}: ${ClientFailure.preview(text)}`,
            status: response.status,
            ...(failure === undefined || failure._tag === "TransportError" ? {} : { cause: failure })
          })
        }
        // A JSON answer to a batch of responses/notifications carries nothing; an SSE one may.
        yield* Effect.ignore(readAnswer(response, receiveText, { lastEventId: undefined, retryMs: undefined }))
        if (m.method === "notifications/initialized" && (options.standaloneStream ?? true) && !listening) {
          yield* startListening
        }
      })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* FiberMap.clear(exchanges)
        if (sessionId === undefined || mode === "legacy" || options.terminateOnClose === false) return
        const headers = yield* headersFor(undefined, true)
        yield* execute({ method: "DELETE", url, headers }).pipe(
          Effect.flatMap((response) => response.text),
          Effect.timeout(Duration.seconds(2)),
          Effect.ignore
        )
      })
    )

    return {
      receive: incoming.receive,
      listen: incoming.listen,
      send
    }
  })

/** The Streamable HTTP client transport as a Layer (over the HttpClient in context). */
export const layer = (options: Options): Layer.Layer<Transport.Transport, never, HttpClient.HttpClient> =>
  Layer.scoped(Transport.Transport, make(options))
