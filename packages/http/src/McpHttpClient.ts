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
 * that could not be renewed); a JSON-RPC error in an HTTP error answer is the McpError of its code. This module holds
 * the public surface; the transport's parts (one request's exchange, its answer, the session, the GET streams, the
 * legacy transport) live in `internal/client/`.
 */
import { Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Send from "./internal/client/send.js"
import * as Session from "./internal/client/session.js"
import * as State from "./internal/client/state.js"

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

/** One HTTP request of the transport. */
export interface OutgoingRequest {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: string
  /** The headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string>>
  /** A body (POST): JSON unless `content-type` says otherwise. */
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
}> {
  override get message(): string {
    return this.reason
  }
}

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
    : HttpClientRequest.bodyText(withHeaders, request.body, request.headers["content-type"] ?? "application/json")
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
    const incoming = yield* Effect.acquireRelease(Transport.makeInbound, (inbound) => Effect.sync(inbound.end))
    const exchanges = yield* FiberMap.make<JsonRpc.RequestId>()
    const client = State.make(options, sendRequest, incoming, exchanges)
    const server = serverOf(client.url)
    yield* Effect.addFinalizer(() => Session.terminate(client))
    return {
      receive: incoming.receive,
      listen: incoming.listen,
      send: (message: Transport.Outgoing) => Send.send(client, message),
      describe: (): Transport.Description =>
        client.sessionId === undefined ? server : { ...server, sessionId: client.sessionId }
    }
  })

/** What telemetry records of the server a URL names: `server.address` and `server.port`, over TCP. */
const serverOf = (url: string): Transport.Description => {
  const parsed = URL.parse(url)
  if (parsed === null) return { networkTransport: "tcp" }
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port)
  return { networkTransport: "tcp", serverAddress: parsed.hostname, serverPort: port }
}

/** The Streamable HTTP client transport as a Layer (over the HttpClient in context). */
export const layer = (options: Options): Layer.Layer<Transport.Transport, never, HttpClient.HttpClient> =>
  Layer.scoped(Transport.Transport, make(options))
