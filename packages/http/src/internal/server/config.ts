/**
 * The endpoint's options, and the same options resolved once (defaults filled in, durations decoded) for the modules
 * that serve requests.
 */
import * as Duration from "effect/Duration"
import type { Authenticate } from "./auth.js"
import type { CorsOptions } from "./cors.js"
import type { RequestHead } from "./exchange.js"
import type { ProtectedResourceMetadata } from "./metadata.js"

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
  /** Lets pages of the listed origins call the endpoint from a browser (default off); never widens `allowedOrigins`. */
  readonly cors?: CorsOptions
  /** Authenticates every request; the identity reaches handlers as `RequestContext.auth`. */
  readonly authenticate?: Authenticate
  /** Serves RFC 9728 metadata and names it in `WWW-Authenticate`. */
  readonly protectedResource?: ProtectedResourceMetadata
  /**
   * The origin (`http://host:port`) at which the server's other processes reach this one, to relay requests for the
   * sessions it holds (with a `SessionDirectory` in context). Default: the address it listens on, as the node:http
   * server or the `@effect/platform` `HttpServer` in context reports it; give it when that address is not one the
   * others reach (a wildcard address, a container's).
   */
  readonly relayOrigin?: string
  /**
   * The longest a legacy HTTP+SSE POST relayed to the process that holds its session waits for that process's answer
   * (default 10 s; then 504). A relayed Streamable HTTP request streams its answer for as long as its client waits.
   */
  readonly relayTimeout?: Duration.DurationInput
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

/** How a POST is answered: the response mode, or the form the client's `Accept` leaves. */
export type AnswerForm = "auto" | "json" | "sse"

/** The options with their defaults. */
export interface Config {
  readonly options: Options
  readonly path: string
  readonly mode: AnswerForm
  readonly standaloneSse: boolean
  readonly idleMs: number
  readonly maxSessions: number
  readonly keepAlive: Duration.Duration
  readonly retryMs: number
  readonly lifetime: Duration.Duration | undefined
  readonly maxBody: number
  readonly relayTimeout: Duration.Duration
  /** The legacy HTTP+SSE endpoints, when served. */
  readonly legacy: { readonly ssePath: string; readonly messagesPath: string } | undefined
}

/** Fills in the defaults. */
export const resolve = (options: Options): Config => {
  const maxSessions = options.maxSessions ?? 10_000
  const legacy = options.legacySse === undefined || options.legacySse === false
    ? undefined
    : options.legacySse === true
    ? {}
    : options.legacySse
  return {
    options,
    path: options.path ?? "/mcp",
    mode: options.responseMode ?? "auto",
    standaloneSse: options.standaloneSse ?? true,
    idleMs: Duration.toMillis(options.sessionIdleTimeout ?? Duration.minutes(30)),
    maxSessions,
    keepAlive: Duration.decode(options.keepAliveInterval ?? Duration.seconds(15)),
    retryMs: Duration.toMillis(options.retryInterval ?? Duration.seconds(1)),
    lifetime: options.sseConnectionLifetime === undefined ? undefined : Duration.decode(options.sseConnectionLifetime),
    maxBody: options.maxBodySize ?? 4 * 1024 * 1024,
    relayTimeout: Duration.decode(options.relayTimeout ?? Duration.seconds(10)),
    legacy: legacy === undefined
      ? undefined
      : { ssePath: legacy.ssePath ?? "/sse", messagesPath: legacy.messagesPath ?? "/messages" }
  }
}
