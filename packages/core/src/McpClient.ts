/**
 * McpClient: a typed MCP client over the current Transport. The Layer performs the handshake,
 * exposes every client→server method with domain types, turns server notifications into Streams,
 * and answers server→client requests through the optional ClientHandlers services.
 *
 * The implementation is in `internal/client/`, one module per concept: negotiation and its memory, the typed request
 * path (`client`), the stateless `_meta`, the `input_required` loop, the list cache, paging, tasks, result
 * validation, notification Streams, progress Streams and the answers to the server's requests.
 */
import type { JsonRpc, Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientHandlers from "./ClientHandlers.js"
import type { CapabilityMissing, ConnectionClosed, HandshakeFailed, ProtocolViolation } from "./Errors.js"
import { Client } from "./internal/client/client.js"
import { negotiate } from "./internal/client/negotiation.js"
import type * as TypedCalls from "./internal/client/typedCalls.js"
import * as Engine from "./internal/engine.js"
import type * as Prompt from "./Prompt.js"
import type * as Tool from "./Tool.js"
import type * as Transport from "./Transport.js"

export {
  /** What negotiation found a server speaks: the stateless revision, or only the handshake revisions. */
  type Era,
  /** An in-process negotiation memory of at most `capacity` servers (default 1,000), least recently used forgotten. */
  makeNegotiationMemory,
  /** Where clients remember negotiation outcomes; by default one in-process memory shared by every client. */
  NegotiationMemory,
  /** How many servers an in-process negotiation memory remembers by default. */
  negotiationMemoryCapacity,
  /** Remembers per server what negotiation found. */
  type NegotiationMemoryService
} from "./internal/client/negotiationMemory.js"

export {
  /** How many progress updates `callToolStream` keeps for a consumer that is behind (older ones are dropped). */
  progressWindow
} from "./internal/client/progressStream.js"

/**
 * Every way a client call can fail: the server's JSON-RPC error (a timeout is `RequestTimeout`), the connection's
 * end, what the transport saw instead of an answer (`TransportError`, `Unauthorized`, `Forbidden`, `SessionExpired`),
 * a capability the server lacks, or an answer that breaks the protocol.
 */
export type McpClientError =
  | McpError.McpError
  | ConnectionClosed
  | Transport.RequestError
  | CapabilityMissing
  | ProtocolViolation

/** A progress update of a call. */
export type Progress = Engine.Progress

/** Options of one call. */
export interface CallOptions {
  /** Response timeout (default: the client's, 60 s); progress resets it unless told otherwise. */
  readonly timeout?: Duration.DurationInput
  /** Whether progress restarts the timeout (default true). */
  readonly resetTimeoutOnProgress?: boolean
  /** A cap on the total time of the call. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Called with each progress update (attaches a progress token). */
  readonly onProgress?: (progress: Progress) => void
}

/** What a call with progress streams: progress updates, then the result. */
export type CallEvent<A> =
  | { readonly _tag: "Progress"; readonly progress: Progress }
  | { readonly _tag: "Result"; readonly result: A }

/** A tool call running as a task on the server (2025-11-25 core tasks, or the 2026 tasks extension). */
export interface TaskHandle {
  /** The task's id. */
  readonly taskId: string
  /** The task as the server created it. */
  readonly created: Mcp.Task
  /** The task's current state (`tasks/get`). */
  readonly status: Effect.Effect<Mcp.Task, McpClientError>
  /** Polls until the task ends (honouring `pollInterval`), then returns the tool's result or fails with its error. */
  readonly result: Effect.Effect<Mcp.CallToolResult, McpClientError>
  /** Cancels the task (`tasks/cancel`). */
  readonly cancel: Effect.Effect<Mcp.Task, McpClientError>
}

/** Options of a call made as a task. */
export interface TaskOptions extends CallOptions {
  /** How long the server should keep the task after it ends, in milliseconds. */
  readonly ttl?: number
}

/** How the client describes itself and behaves. */
export interface Options {
  readonly name: string
  readonly version: string
  readonly title?: string
  /** Pin a revision instead of negotiating (2026-07-28 probes `server/discover`; older ones use `initialize`). */
  readonly revision?: Revision.Revision
  /** At most this many `input_required` rounds per request under 2026-07-28 (default 8). */
  readonly maxInputRounds?: number
  /** The default timeout of calls (default 60 s). */
  readonly requestTimeout?: Duration.DurationInput
  /** What the server sends nested deeper than this is refused unread: a response fails its call (default 512). */
  readonly maxDepth?: number
  /**
   * How long the `server/discover` probe waits for its answer before the client falls back to `initialize` (default
   * 5 s, at most `requestTimeout`): a server that never answers it, or answers with another id, costs this, not a
   * request timeout. Not used when the client is pinned to 2026-07-28.
   */
  readonly probeTimeout?: Duration.DurationInput
  /** Extra capabilities to declare (experimental, extensions). */
  readonly capabilities?: Mcp.ClientCapabilities
  /**
   * A name for the server (its URL, its command line): what negotiation finds is remembered in `NegotiationMemory`
   * under it, so the next connection to a handshake-only server skips the `server/discover` probe.
   */
  readonly server?: string
}

/** A snapshot of a client connection's activity. */
export interface ClientStats {
  /** Our requests awaiting a response. */
  readonly pending: number
  /** The server's requests (sampling, elicitation, roots) whose handlers are running. */
  readonly inFlight: number
}

/** A connected MCP client. */
export interface McpClientService {
  /** The negotiated revision. */
  readonly revision: Revision.Revision
  /** The server's self-description. */
  readonly serverInfo: Mcp.Implementation
  /** The server's capabilities. */
  readonly serverCapabilities: Mcp.ServerCapabilities
  /** The server's instructions, if any. */
  readonly instructions: string | undefined
  /** What the connection is doing now: our requests awaiting a response, the server's requests being answered. */
  readonly stats: () => ClientStats
  /** Sends any client→server request by method name, with domain-typed params and result. */
  readonly request: <M extends keyof Method.ClientRequests>(
    method: M,
    params: Method.ClientRequests[M]["params"],
    options?: CallOptions
  ) => Effect.Effect<Method.ClientRequests[M]["result"], McpClientError>
  /** Pings the server. */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, McpClientError>
  /** Every tool, following every page. */
  readonly listTools: () => Effect.Effect<ReadonlyArray<Mcp.Tool>, McpClientError>
  /** Calls a tool; validates any `structuredContent` (an error's too) against the tool's `outputSchema` when known. */
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<Mcp.CallToolResult, McpClientError>
  /**
   * Calls a tool from its definition (a typed contract shared with the server): the input encoded with its input
   * schema, the result decoded with its output schema (the whole result for a tool without one), a failure its
   * failure schema declares decoded into its type, any other `isError` result a `Tool.ToolError`.
   */
  readonly call: {
    <I, II, O, OI, F = never, FI = never>(
      tool: TypedCalls.ToolContract<I, II, O, OI, F, FI> & { readonly output: Schema.Schema<O, OI, never> },
      input: I,
      options?: CallOptions
    ): Effect.Effect<O, F | Tool.ToolError | McpClientError>
    <I, II, F = never, FI = never>(
      tool: TypedCalls.ToolContract<I, II, never, never, F, FI> & { readonly output?: undefined },
      input: I,
      options?: CallOptions
    ): Effect.Effect<Mcp.CallToolResult, F | Tool.ToolError | McpClientError>
  }
  /** Calls a tool as a task: answers at once with a handle to poll, await or cancel it. */
  readonly callToolAsTask: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: TaskOptions
  ) => Effect.Effect<TaskHandle, McpClientError>
  /** Calls a tool as a Stream of progress updates ending in the result. */
  readonly callToolStream: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: Omit<CallOptions, "onProgress">
  ) => Stream.Stream<CallEvent<Mcp.CallToolResult>, McpClientError>
  /** Every resource, following every page. */
  readonly listResources: () => Effect.Effect<ReadonlyArray<Mcp.Resource>, McpClientError>
  /** Every resource template, following every page. */
  readonly listResourceTemplates: () => Effect.Effect<ReadonlyArray<Mcp.ResourceTemplate>, McpClientError>
  /** Reads a resource. */
  readonly readResource: (uri: string, options?: CallOptions) => Effect.Effect<Mcp.ReadResourceResult, McpClientError>
  /** Subscribes to updates of a resource. */
  readonly subscribe: (uri: string) => Effect.Effect<void, McpClientError>
  /** Ends a subscription. */
  readonly unsubscribe: (uri: string) => Effect.Effect<void, McpClientError>
  /** Every prompt, following every page. */
  readonly listPrompts: () => Effect.Effect<ReadonlyArray<Mcp.Prompt>, McpClientError>
  /**
   * Gets a prompt: by name, or from its definition (a typed contract shared with the server), its arguments encoded
   * with its schema and a failure its failure schema declares decoded into its type.
   */
  readonly getPrompt: {
    (
      name: string,
      args?: Readonly<Record<string, string>>,
      options?: CallOptions
    ): Effect.Effect<Mcp.GetPromptResult, McpClientError>
    <A, I extends Prompt.Arguments, F = never, FI = never>(
      prompt: TypedCalls.PromptContract<A, I, F, FI>,
      args: A,
      options?: CallOptions
    ): Effect.Effect<Mcp.GetPromptResult, F | McpClientError>
  }
  /** Asks for completions of an argument. */
  readonly complete: (params: Mcp.CompleteRequestParams) => Effect.Effect<Mcp.CompleteResult, McpClientError>
  /** Sets the level of the log messages the server sends (per request under 2026-07-28). */
  readonly setLoggingLevel: (level: Mcp.LoggingLevel) => Effect.Effect<void, McpClientError>
  /** Opens a `subscriptions/listen` stream (2026-07-28): the acknowledgement, then the opted-in notifications. */
  readonly listen: (filter: Mcp.SubscriptionFilter) => Stream.Stream<JsonRpc.Notification, McpClientError>
  /** Whether the connection is stateless (2026-07-28). */
  readonly stateless: boolean
  /** Every notification from the server. */
  readonly notifications: Stream.Stream<JsonRpc.Notification>
  /** Emits when the server's tool list changes. */
  readonly toolListChanged: Stream.Stream<void>
  /** Emits when the server's resource list changes. */
  readonly resourceListChanged: Stream.Stream<void>
  /** Emits when the server's prompt list changes. */
  readonly promptListChanged: Stream.Stream<void>
  /** Emits the URI of each updated resource we subscribed to. */
  readonly resourceUpdated: Stream.Stream<string>
  /** The server's log messages. */
  readonly logMessages: Stream.Stream<Mcp.LoggingMessageNotificationParams>
  /** Completes when the connection has ended. */
  readonly closed: Effect.Effect<void>
}

/** The connected client. */
export class McpClient extends Context.Tag("@effect-mcp/core/McpClient")<McpClient, McpClientService>() {}

/** Connects over the current Transport and performs the handshake. */
export const make = (
  options: Options
): Effect.Effect<McpClientService, HandshakeFailed, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const client = new Client(
      options,
      yield* Effect.serviceOption(ClientHandlers.SamplingHandler),
      yield* Effect.serviceOption(ClientHandlers.ElicitationHandler),
      yield* Effect.serviceOption(ClientHandlers.RootsProvider)
    )
    client.engine = yield* Engine.make(client, {
      ...(options.requestTimeout === undefined ? {} : { defaultTimeout: options.requestTimeout }),
      ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth })
    })
    yield* negotiate(client)
    const roots = client.roots
    if (Option.isSome(roots) && roots.value.changes !== undefined && !client.stateless) {
      yield* roots.value.changes.pipe(
        Stream.runForEach(() => Effect.ignore(client.engine.notify("notifications/roots/list_changed", undefined))),
        Effect.forkScoped
      )
    }
    return client
  })

/** A connected client as a Layer over the current Transport (handlers are picked up when provided). */
export const layer = (options: Options): Layer.Layer<McpClient, HandshakeFailed, Transport.Transport> =>
  Layer.scoped(McpClient, make(options))
