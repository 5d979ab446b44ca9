/**
 * The server service's types: the registry a user holds and every session reads (`McpServerService`), its options,
 * and what a connection gives the server's runtime (runtime.ts: a change watcher, its live counts). Here rather than
 * in McpServer.ts so that the session's modules and McpServer.ts import them without importing each other;
 * McpServer.ts re-exports every one of them.
 */
import type { Mcp } from "@effect-mcp/schema"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Prompt from "../../Prompt.js"
import type * as Resource from "../../Resource.js"
import type * as Tool from "../../Tool.js"
import { RuntimeId, type ServerRuntime } from "./runtime.js"

/** The methods whose 2026-07-28 results carry cache hints. */
export type CacheableMethod =
  | "tools/list"
  | "prompts/list"
  | "resources/list"
  | "resources/templates/list"
  | "resources/read"
  | "server/discover"

/** Which list changed. */
export type ListKind = "tools" | "resources" | "prompts"

/** How a server describes itself and behaves. */
export interface Options {
  readonly name: string
  readonly version: string
  readonly title?: string
  readonly description?: string
  readonly websiteUrl?: string
  readonly icons?: ReadonlyArray<Mcp.Icon>
  /** Instructions for the model, returned by `initialize`. */
  readonly instructions?: string
  /** Items per page of every list method (default 100). */
  readonly pageSize?: number
  /** At most this many requests of one connection run at once (default unbounded). */
  readonly concurrency?: number
  /** A frame nested deeper than this is refused unread: -32602 for a request's params (default 512). */
  readonly maxDepth?: number
  /** A JSON-RPC batch (2025-03-26) of more messages than this is refused whole with -32600 (default 100). */
  readonly maxBatchSize?: number
  /** The timeout of server→client requests (default 60 s). */
  readonly requestTimeout?: Duration.DurationInput
  /** How long list changes are gathered before `list_changed` is sent (default 10 ms). */
  readonly listChangedDebounce?: Duration.DurationInput
  /** The secret that authenticates multi-round-trip `requestState` (default: random per server). */
  readonly requestStateKey?: string | Uint8Array
  /**
   * How long a multi-round-trip `requestState` is accepted after it was issued (default 10 minutes): a retry with an
   * older one is refused with the -32602 a tampered state gets.
   */
  readonly requestStateMaxAge?: Duration.DurationInput
  /**
   * The cache hints of list, read and discover results under 2026-07-28 (default: 0 ms, private);
   * `methods` overrides them per method, and a resource's own `cache` overrides them for its reads.
   */
  readonly cache?: {
    readonly ttlMs?: number
    readonly scope?: "private" | "public"
    readonly methods?: Partial<Record<CacheableMethod, Resource.CacheHints>>
  }
  /**
   * Tasks: the poll interval suggested to clients (default 1 s), and the longest a settled task is
   * kept, which is also the ttl of tasks whose client asked for none (default 1 hour).
   */
  readonly tasks?: { readonly pollInterval?: Duration.DurationInput; readonly maxTtl?: Duration.DurationInput }
  /** Capabilities declared even when nothing of that kind is registered yet (for definitions added later). */
  readonly capabilities?: {
    readonly tools?: boolean
    readonly resources?: boolean
    readonly prompts?: boolean
    readonly logging?: boolean
    readonly experimental?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
    readonly extensions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  }
}

/** A server's registry and settings: what a user adds to, reads and watches the health of. */
export interface McpServerService {
  /** The server's settings. */
  readonly options: Options
  /** The server's self-description. */
  readonly info: Mcp.Implementation
  /** Adds or replaces a tool (by name). */
  readonly addTool: (tool: Tool.Tool) => Effect.Effect<void>
  /** Removes a tool by name. */
  readonly removeTool: (name: string) => Effect.Effect<void>
  /** Adds or replaces a resource (by URI). */
  readonly addResource: (resource: Resource.Resource) => Effect.Effect<void>
  /** Removes a resource by URI. */
  readonly removeResource: (uri: string) => Effect.Effect<void>
  /** Adds or replaces a resource template (by URI template). */
  readonly addTemplate: (template: Resource.Template) => Effect.Effect<void>
  /** Removes a resource template by its URI template. */
  readonly removeTemplate: (uriTemplate: string) => Effect.Effect<void>
  /** Adds or replaces a prompt (by name). */
  readonly addPrompt: (prompt: Prompt.Prompt) => Effect.Effect<void>
  /** Removes a prompt by name. */
  readonly removePrompt: (name: string) => Effect.Effect<void>
  /** The registered tools, in registration order. */
  readonly tools: () => ReadonlyArray<Tool.Tool>
  /** A tool by name. */
  readonly tool: (name: string) => Tool.Tool | undefined
  /** The registered resources. */
  readonly resources: () => ReadonlyArray<Resource.Resource>
  /** A resource by URI. */
  readonly resource: (uri: string) => Resource.Resource | undefined
  /** The registered templates. */
  readonly templates: () => ReadonlyArray<Resource.Template>
  /** The registered prompts. */
  readonly prompts: () => ReadonlyArray<Prompt.Prompt>
  /** A prompt by name. */
  readonly prompt: (name: string) => Prompt.Prompt | undefined
  /** The capabilities derived from what is registered (and the options). */
  readonly capabilities: () => Mcp.ServerCapabilities
  /** Tells subscribed clients that a resource changed. */
  readonly notifyResourceUpdated: (uri: string) => Effect.Effect<void>
  /** What the server is doing now, over every live connection (for health checks, metrics and leak tests). */
  readonly stats: () => ServerStats
  /** Internal: what the server's connections share (counts, hubs, tasks); a spread of the registry keeps it. */
  readonly [RuntimeId]: ServerRuntime
}

/** What a connection does when the server changes: it must only record or schedule work, never block or throw. */
export interface ChangeWatcher {
  /** A list of tools, resources or prompts changed. */
  readonly listChanged: (kind: ListKind) => void
  /** The resource at this URI changed. */
  readonly resourceUpdated: (uri: string) => void
}

/** The live counts of one connection. */
export interface ConnectionCounts {
  /** Requests from the peer whose handlers are running. */
  readonly inFlight: () => number
  /** Our requests to the peer that await a response. */
  readonly pending: () => number
  /** Whether the connection has ended: it is no longer counted, though the scope it was served in may be open. */
  readonly isClosed?: () => boolean
  /**
   * How many connections of `stats` this entry stands for (1 when absent): a transport that serves many peers'
   * requests on one connection (2026-07-28 over HTTP) counts each request it is answering.
   */
  readonly connections?: () => number
}

/** A snapshot of a server's activity (for health checks, metrics and leak tests). */
export interface ServerStats {
  /** Live connections (sessions, stdio streams, and 2026-07-28 requests being answered). */
  readonly connections: number
  /** Handlers running, over every connection. */
  readonly inFlight: number
  /** Server→client requests awaiting a response, over every connection. */
  readonly pending: number
}
