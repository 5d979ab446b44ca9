/**
 * The state one Streamable HTTP client transport shares between its parts: where it posts and its limits, the session
 * and revision it negotiated, which era it found the server speaking, and what it knows of the requests in flight.
 * Every part of the transport (`internal/client/*`) is a function of this one record, made once per transport.
 */
import type { Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as FiberMap from "effect/FiberMap"
import * as Schedule from "effect/Schedule"
import type * as McpHttpClient from "../../McpHttpClient.js"
import type * as ParamHeaders from "../paramHeaders.js"

/** A failure of one exchange, before or while reading its answer. */
export class Failed extends Data.TaggedError("Failed")<{
  readonly reason: string
  readonly cause?: unknown
  readonly status?: number
  /** The answer passed `maxMessageBytes`: resuming its stream would only meet it again. */
  readonly tooLarge?: boolean
}> {}

/** Where an SSE answer stands: the last event id seen (to resume from) and the server's `retry`. */
export interface Cursor {
  lastEventId: string | undefined
  retryMs: number | undefined
}

/** Which transport the server speaks: not known yet (the first POST tells), Streamable HTTP, or legacy HTTP+SSE. */
export type Mode = "probing" | "streamable" | "legacy"

/** The state of one client transport. */
export interface ClientState {
  readonly options: McpHttpClient.Options
  /** The MCP endpoint. */
  readonly url: string
  /** The largest message accepted from the server, in bytes. */
  readonly maxMessageBytes: number
  /** The delays between reconnection attempts of a cut SSE stream. */
  readonly reconnect: Schedule.Schedule<unknown, unknown>
  /** The HTTP exchange the transport runs over. */
  readonly sendRequest: McpHttpClient.Execute
  /** Where what arrives is handed to the engine. */
  readonly incoming: Transport.Inbound
  /** The fibers of the requests in flight (by id) and of the GET streams (by their own keys). */
  readonly exchanges: FiberMap.FiberMap<JsonRpc.RequestId>
  /** The handshake session, once the server gave one. */
  sessionId: string | undefined
  /** The revision the handshake negotiated. */
  protocolVersion: string | undefined
  /** The first `initialize` request: repeated to renew the session. */
  initialize: JsonRpc.Request | undefined
  /** Whether the standalone GET stream was asked for (it is opened again after a renewal). */
  listening: boolean
  /** The renewal under way, shared by every request that met the 404. */
  reinitializing: Effect.Effect<void, Transport.SessionExpired> | undefined
  /** Numbers the transport's own requests. */
  nextInternalId: number
  mode: Mode
  /** Where the legacy transport POSTs (its `endpoint` event). */
  legacyEndpoint: string
  /** Ids of requests whose response arrived (the exchange stops resuming once its id is here). */
  readonly answered: Set<JsonRpc.RequestId>
  /** Requests sent statelessly (2026-07-28), by id, with their method; cancelling one is closing its stream. */
  readonly stateless: Map<JsonRpc.RequestId, string>
  /** The `x-mcp-header` parameters of each tool, from the last stateless `tools/list`. */
  readonly mirrored: Map<string, ReadonlyArray<ParamHeaders.ParamHeader>>
  /** Responses to our internal requests (re-initialization, tools/list) go here instead of to the engine. */
  readonly internal: Map<JsonRpc.RequestId, (message: Record<string, unknown>) => void>
}

const defaultMaxMessageBytes = 64 * 1024 * 1024

/** The state of a new transport, before its first message. */
export const make = (
  options: McpHttpClient.Options,
  sendRequest: McpHttpClient.Execute,
  incoming: Transport.Inbound,
  exchanges: FiberMap.FiberMap<JsonRpc.RequestId>
): ClientState => {
  const url = typeof options.url === "string" ? options.url : options.url.toString()
  return {
    options,
    url,
    maxMessageBytes: options.maxMessageBytes ?? defaultMaxMessageBytes,
    reconnect: options.reconnect ??
      Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(8))),
    sendRequest,
    incoming,
    exchanges,
    sessionId: undefined,
    protocolVersion: undefined,
    initialize: undefined,
    listening: false,
    reinitializing: undefined,
    nextInternalId: 0,
    mode: options.legacyFallback === false ? "streamable" : "probing",
    legacyEndpoint: url,
    answered: new Set(),
    stateless: new Map(),
    mirrored: new Map(),
    internal: new Map()
  }
}

/** A cursor at the start of an answer. */
export const cursor = (): Cursor => ({ lastEventId: undefined, retryMs: undefined })
