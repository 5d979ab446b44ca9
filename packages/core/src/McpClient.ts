/**
 * McpClient: a typed MCP client over the current Transport. The Layer performs the handshake,
 * exposes every client→server method with domain types, turns server notifications into Streams,
 * and answers server→client requests through the optional ClientHandlers services.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientHandlers from "./ClientHandlers.js"
import { CapabilityMissing, type ConnectionClosed, HandshakeFailed, ProtocolViolation } from "./Errors.js"
import * as Engine from "./internal/engine.js"
import { check } from "./internal/jsonSchemaCheck.js"
import { isRecord, record } from "./internal/record.js"
import * as Transport from "./Transport.js"

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

/** What negotiation found a server speaks: the stateless revision, or only the handshake revisions. */
export type Era = "stateless" | "handshake"

/** Remembers per server what negotiation found. */
export interface NegotiationMemoryService {
  /** What was found for a server, if anything. */
  readonly get: (server: string) => Effect.Effect<Option.Option<Era>>
  /** Records what was found for a server. */
  readonly set: (server: string, era: Era) => Effect.Effect<void>
}

/** How many servers an in-process negotiation memory remembers by default (the least recently used are forgotten). */
export const negotiationMemoryCapacity = 1_000

/** An in-process negotiation memory of at most `capacity` servers (default 1,000), least recently used forgotten. */
export const makeNegotiationMemory = (capacity: number = negotiationMemoryCapacity): NegotiationMemoryService => {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const eras = new Map<string, Era>()
  return {
    get: (server) =>
      Effect.sync(() => {
        const era = eras.get(server)
        if (era === undefined) return Option.none()
        eras.delete(server)
        eras.set(server, era)
        return Option.some(era)
      }),
    set: (server, era) =>
      Effect.sync(() => {
        eras.delete(server)
        eras.set(server, era)
        for (const oldest of eras.keys()) {
          if (eras.size <= Math.max(1, capacity)) break
          eras.delete(oldest)
        }
      })
  }
}

/** Where clients remember negotiation outcomes; by default one in-process memory shared by every client. */
export class NegotiationMemory extends Context.Reference<NegotiationMemory>()(
  "@effect-mcp/core/McpClient/NegotiationMemory",
  { defaultValue: () => makeNegotiationMemory() }
) {}

/** A connected MCP client. */
/** How many progress updates `callToolStream` keeps for a consumer that is behind (older ones are dropped). */
export const progressWindow = 64

/** A snapshot of a client connection's activity. */
export interface ClientStats {
  /** Our requests awaiting a response. */
  readonly pending: number
  /** The server's requests (sampling, elicitation, roots) whose handlers are running. */
  readonly inFlight: number
}

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
  /** Gets a prompt. */
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions
  ) => Effect.Effect<Mcp.GetPromptResult, McpClientError>
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

const metaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  serverInfo: "io.modelcontextprotocol/serverInfo"
} as const

const tasksExtension = "io.modelcontextprotocol/tasks"

const ended = (status: Mcp.TaskStatus) => status === "completed" || status === "failed" || status === "cancelled"

const cacheableMethods = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"])

const inputParamTypes: Record<string, string> = {
  "sampling/createMessage": "CreateMessageRequestParams",
  "elicitation/create": "ElicitRequestParams",
  "roots/list": "ListRootsRequestParams"
}

const capabilityName = (path: ReadonlyArray<string>) => path.join(".")

/** What negotiation found. */
interface Negotiated {
  readonly revision: Revision.Revision
  readonly stateless: boolean
  readonly serverInfo: Mcp.Implementation
  readonly serverCapabilities: Mcp.ServerCapabilities
  readonly instructions: string | undefined
}

/** The paging parameter of a list request. */
const paged = (cursor: string | undefined) => (cursor === undefined ? undefined : { cursor })

/** Every item of a list, following every page (a repeated cursor is the server's violation). */
const allPages = <A>(
  fetch: (cursor: string | undefined) => Effect.Effect<{ readonly nextCursor?: string }, McpClientError>,
  items: (page: never) => ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, McpClientError> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    do {
      const page = yield* fetch(cursor)
      out.push(...items(page as never))
      cursor = page.nextCursor
      if (cursor !== undefined) {
        if (seen.has(cursor)) return yield* new ProtocolViolation({ reason: "the server repeated a cursor" })
        seen.add(cursor)
      }
    } while (cursor !== undefined)
    return out
  })

const decodeAs = <A>(type: string, rev: Revision.Revision | "domain", raw: unknown, what: string) => {
  const decoded = Codec.decode(rev, type, raw)
  return Either.isRight(decoded)
    ? Effect.succeed(decoded.right as A)
    : Effect.fail(
      new ProtocolViolation({ reason: `the server's ${what} is invalid: ${Codec.describe(decoded.left)}` })
    )
}

const taskOf = (raw: Record<string, unknown>, what: string) => decodeAs<Mcp.Task>("Task", "domain", raw, what)

const notFound = (method: string) =>
  Effect.fail<JsonRpc.ErrorObject>({ code: McpError.codes.MethodNotFound, message: `Method not found: ${method}` })

/** The notifications of one method, from a client's hub. */
const byMethod = (hub: PubSub.PubSub<JsonRpc.Notification>, method: string) =>
  Stream.fromPubSub(hub).pipe(Stream.filter((n) => n.method === method))

/**
 * One connection's client: its state as fields, its internals on the prototype and its operations as bound
 * functions (destructuring them works). It is also the engine's handlers of the server's requests. The Streams of
 * notifications are built on first use, behind accessors: eager Stream values cost about 28 KB a connection, which a
 * host with many servers would pay for streams it never reads.
 */
class Client implements McpClientService, Engine.Handlers<JsonRpc.ErrorObject> {
  engine!: Engine.Engine
  revision: Revision.Revision
  stateless = false
  serverInfo: Mcp.Implementation = { name: "unknown", version: "unknown" }
  serverCapabilities: Mcp.ServerCapabilities = {}
  instructions: string | undefined = undefined
  readonly capabilities: Mcp.ClientCapabilities
  readonly clientInfo: Mcp.Implementation
  logLevel: Mcp.LoggingLevel | undefined = undefined
  // The same for every request until the revision or the log level changes: built once, not per request.
  metaCache: { readonly rev: Revision.Revision; readonly level: unknown; readonly meta: object } | undefined = undefined
  // The notification hub is made for its first reader (synchronously): until then a notification has no reader
  // and is dropped, as a hub without subscribers would drop it.
  hub: PubSub.PubSub<JsonRpc.Notification> | undefined = undefined
  outputSchemas: Map<string, unknown> | undefined = undefined
  listCache: Map<string, { readonly expires: number; readonly result: unknown }> | undefined = undefined
  streams: Record<string, Stream.Stream<unknown>> | undefined = undefined

  constructor(
    readonly options: Options,
    readonly sampling: Option.Option<ClientHandlers.SamplingHandlerService>,
    readonly elicitation: Option.Option<ClientHandlers.ElicitationHandlerService>,
    readonly roots: Option.Option<ClientHandlers.RootsProviderService>
  ) {
    this.revision = options.revision ?? Revision.latestHandshake
    this.capabilities = {
      ...options.capabilities,
      ...(Option.isSome(roots) ? { roots: { listChanged: roots.value.changes !== undefined } } : {}),
      ...(Option.isSome(sampling) ? { sampling: sampling.value.tools === true ? { tools: {} } : {} } : {}),
      ...(Option.isSome(elicitation)
        ? {
          elicitation: Object.fromEntries((elicitation.value.modes ?? ["form"]).map((m) => [m, {}]))
        }
        : {})
    }
    this.clientInfo = {
      name: options.name,
      version: options.version,
      ...(options.title ? { title: options.title } : {})
    }
    Object.defineProperties(this, Client.#lazy)
  }

  /** Records what negotiation found. */
  connected(found: Negotiated): this {
    this.revision = found.revision
    this.stateless = found.stateless
    this.serverInfo = found.serverInfo
    this.serverCapabilities = found.serverCapabilities
    this.instructions = found.instructions
    return this
  }

  notificationHub(): PubSub.PubSub<JsonRpc.Notification> {
    return (this.hub ??= Effect.runSync(PubSub.unbounded<JsonRpc.Notification>()))
  }

  statelessMeta(rev: Revision.Revision): object {
    const cached = this.metaCache
    if (cached !== undefined && cached.rev === rev && cached.level === this.logLevel) return cached.meta
    const logLevel = this.logLevel
    const meta = {
      [metaKeys.protocolVersion]: rev,
      [metaKeys.clientInfo]: this.clientInfo,
      [metaKeys.clientCapabilities]: this.capabilities,
      ...(logLevel === undefined ? {} : { [metaKeys.logLevel]: logLevel })
    }
    this.metaCache = { rev, level: logLevel, meta }
    return meta
  }

  // ---------- the engine's handlers: the server's requests and notifications ----------

  answer<A>(method: string, params: unknown, run: (p: never) => Effect.Effect<A, McpError.McpError>) {
    const decoded = Codec.decodeParamsLenient(method, this.revision, params)
    if (Either.isLeft(decoded)) {
      return Effect.fail<JsonRpc.ErrorObject>({
        code: McpError.codes.InvalidParams,
        message: `Invalid params for ${method}: ${Codec.describe(decoded.left)}`
      })
    }
    return run(decoded.right as never).pipe(
      Effect.flatMap((result) => {
        const encoded = Codec.encodeResultLenient(method, this.revision, result)
        return Either.isRight(encoded)
          ? Effect.succeed(encoded.right as Record<string, unknown>)
          : Effect.fail(
            new McpError.InternalError({ message: `Invalid ${method} result: ${Codec.describe(encoded.left)}` })
          )
      }),
      Effect.mapError((e) => (McpError.isMcpError(e) ? McpError.toWire(e, this.revision) : e))
    )
  }

  onRequest(request: JsonRpc.Request): Effect.Effect<Record<string, unknown>, JsonRpc.ErrorObject> {
    switch (request.method) {
      case "ping":
        return Effect.succeed({})
      case "sampling/createMessage":
        return Option.isSome(this.sampling)
          ? this.answer(request.method, request.params, this.sampling.value.createMessage)
          : notFound(request.method)
      case "elicitation/create":
        return Option.isSome(this.elicitation)
          ? this.answer(request.method, request.params, this.elicitation.value.elicit)
          : notFound(request.method)
      case "roots/list": {
        const roots = this.roots
        return Option.isSome(roots)
          ? this.answer(request.method, request.params, () => Effect.map(roots.value.roots, (r) => ({ roots: r })))
          : notFound(request.method)
      }
      default:
        return notFound(request.method)
    }
  }

  toWire(error: JsonRpc.ErrorObject): JsonRpc.ErrorObject {
    return error
  }

  onNotification(notification: JsonRpc.Notification): Effect.Effect<void> {
    return this.hub === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.hub, notification))
  }

  acceptsBatch(): boolean {
    return false
  }

  // ---------- calls ----------

  decodeResult<M extends keyof Method.ClientRequests>(method: M, result: Record<string, unknown>) {
    const decoded = Codec.decodeResultLenient(method, this.revision, result)
    return Either.isRight(decoded)
      ? Effect.succeed(decoded.right as Method.ClientRequests[M]["result"])
      : Effect.fail(
        new ProtocolViolation({ reason: `the server's ${method} result is invalid: ${Codec.describe(decoded.left)}` })
      )
  }

  /** One stateless round: the request (with the answers to the last round's input requests), then the next round. */
  round<M extends keyof Method.ClientRequests>(
    method: M,
    base: Record<string, unknown> | undefined,
    callOptions: CallOptions | undefined,
    cacheKey: string | undefined,
    n: number,
    extra: Record<string, unknown> | undefined
  ): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> {
    return Effect.flatMap(
      this.engine.request(method, extra === undefined ? base : { ...base, ...extra }, callOptions),
      (raw) => {
        if (raw.resultType !== "input_required") {
          if (cacheKey === undefined) return this.decodeResult(method, raw)
          return Effect.flatMap(this.decodeResult(method, raw), (result) => {
            const ttl = (result as { ttlMs?: number }).ttlMs
            if (typeof ttl !== "number" || ttl <= 0) return Effect.succeed(result)
            return Effect.clockWith((clock) => {
              ;(this.listCache ??= new Map()).set(cacheKey, { expires: clock.unsafeCurrentTimeMillis() + ttl, result })
              return Effect.succeed(result)
            })
          })
        }
        const maxRounds = this.options.maxInputRounds ?? 8
        if (n >= maxRounds) {
          return Effect.fail(
            new ProtocolViolation({ reason: `${method} still required input after ${maxRounds} rounds` })
          )
        }
        const client = this
        return Effect.gen(function*() {
          const inputResponses: Record<string, unknown> = {}
          for (const [key, input] of Object.entries(record(raw.inputRequests))) {
            inputResponses[key] = yield* client.answerInput(record(input))
          }
          return yield* client.round(method, base, callOptions, cacheKey, n + 1, {
            inputResponses,
            ...(typeof raw.requestState === "string" ? { requestState: raw.requestState } : {})
          })
        })
      }
    )
  }

  answerInput(input: Record<string, unknown>): Effect.Effect<unknown, McpClientError> {
    const method = String(input.method)
    const params = input.params
    const run = <A>(handler: (p: never) => Effect.Effect<A, McpError.McpError>) => {
      const decoded = Codec.decode(this.revision, inputParamTypes[method] ?? "", params ?? {})
      return Either.isLeft(decoded)
        ? Effect.fail(
          new ProtocolViolation({ reason: `invalid ${method} input request: ${Codec.describe(decoded.left)}` })
        )
        : handler(decoded.right as never)
    }
    switch (method) {
      case "sampling/createMessage":
        return Option.isSome(this.sampling)
          ? run(this.sampling.value.createMessage)
          : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "sampling" }))
      case "elicitation/create":
        return Option.isSome(this.elicitation)
          ? run(this.elicitation.value.elicit)
          : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "elicitation" }))
      case "roots/list":
        return Option.isSome(this.roots)
          ? Effect.map(this.roots.value.roots, (r) => ({ roots: r }))
          : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "roots" }))
      default:
        return Effect.fail(new ProtocolViolation({ reason: `unknown input request ${method}` }))
    }
  }

  validated(name: string, result: Mcp.CallToolResult | Mcp.InputRequiredResult) {
    if (!("content" in result)) {
      return Effect.fail(
        new ProtocolViolation({ reason: `tools/call ${name} returned an unexpected ${result.resultType} result` })
      )
    }
    // As the official clients do: an output schema requires structuredContent on a result that is not an error, and
    // binds any structuredContent, an error's included (SDK 1.x checks both; Tool's typed failures never send one).
    const schema = this.outputSchemas?.get(name)
    if (schema === undefined) return Effect.succeed(result)
    if (result.structuredContent === undefined) {
      return result.isError === true ? Effect.succeed(result) : Effect.fail(
        new ProtocolViolation({ reason: `tool ${name} has an output schema but returned no structuredContent` })
      )
    }
    const problem = check(schema, result.structuredContent)
    return problem === undefined
      ? Effect.succeed(result)
      : Effect.fail(
        new ProtocolViolation({
          reason: `tool ${name} returned ${
            result.isError === true ? "an error whose structuredContent violates" : "structuredContent that violates"
          } its outputSchema: ${problem}`
        })
      )
  }

  /** The capabilities a request of the 2026 tasks extension declares. */
  taskCapabilities(): Mcp.ClientCapabilities {
    return {
      ...this.capabilities,
      extensions: { ...this.capabilities.extensions, [tasksExtension]: {} }
    }
  }

  /** Under 2026-07-28 the task methods belong to an extension: sent with the request `_meta`, decoded by hand. */
  extensionRequest(method: string, taskId: string) {
    return this.engine.request(method, {
      taskId,
      _meta: { ...this.statelessMeta(this.revision), [metaKeys.clientCapabilities]: this.taskCapabilities() }
    })
  }

  stream<A>(key: string, make: (hub: PubSub.PubSub<JsonRpc.Notification>) => Stream.Stream<A>): Stream.Stream<A> {
    const streams = (this.streams ??= {})
    return (streams[key] ??= make(this.notificationHub()) as Stream.Stream<unknown>) as Stream.Stream<A>
  }

  // ---------- the McpClientService ----------

  /**
   * The connection's end and its Streams of notifications (built on first use): own accessor properties, defined
   * once per client and sharing their functions, so that a spread of the client (`{ ...client, callTool }`) copies
   * them, as it copies the operations.
   */
  static readonly #lazy: PropertyDescriptorMap = {
    closed: {
      enumerable: true,
      get(this: Client) {
        return this.engine.closed
      }
    },
    notifications: {
      enumerable: true,
      get(this: Client) {
        return this.stream("all", (hub) => Stream.fromPubSub(hub))
      }
    },
    toolListChanged: {
      enumerable: true,
      get(this: Client) {
        return this.stream("tools", (hub) => Stream.as(byMethod(hub, "notifications/tools/list_changed"), undefined))
      }
    },
    resourceListChanged: {
      enumerable: true,
      get(this: Client) {
        return this.stream(
          "resources",
          (hub) => Stream.as(byMethod(hub, "notifications/resources/list_changed"), undefined)
        )
      }
    },
    promptListChanged: {
      enumerable: true,
      get(this: Client) {
        return this.stream(
          "prompts",
          (hub) => Stream.as(byMethod(hub, "notifications/prompts/list_changed"), undefined)
        )
      }
    },
    resourceUpdated: {
      enumerable: true,
      get(this: Client) {
        return this.stream(
          "updated",
          (hub) => byMethod(hub, "notifications/resources/updated").pipe(Stream.map((n) => String(n.params?.uri)))
        )
      }
    },
    logMessages: {
      enumerable: true,
      get(this: Client) {
        return this.stream(
          "log",
          (hub) =>
            byMethod(hub, "notifications/message").pipe(
              Stream.map((n) => n.params as unknown as Mcp.LoggingMessageNotificationParams)
            )
        )
      }
    }
  }
  declare readonly closed: Effect.Effect<void>
  declare readonly notifications: Stream.Stream<JsonRpc.Notification>
  declare readonly toolListChanged: Stream.Stream<void>
  declare readonly resourceListChanged: Stream.Stream<void>
  declare readonly promptListChanged: Stream.Stream<void>
  declare readonly resourceUpdated: Stream.Stream<string>
  declare readonly logMessages: Stream.Stream<Mcp.LoggingMessageNotificationParams>

  readonly stats = (): ClientStats => ({ pending: this.engine.pendingCount(), inFlight: this.engine.inFlight() })

  readonly request = <M extends keyof Method.ClientRequests>(
    method: M,
    params: Method.ClientRequests[M]["params"],
    callOptions?: CallOptions
  ): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> =>
    Effect.suspend((): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> => {
      const revision = this.revision
      const facts = Method.info(method)
      if (facts === undefined || !facts.revisions.includes(revision)) {
        return Effect.fail(
          new McpError.MethodNotFound({ message: `${method} does not exist in revision ${revision}`, method })
        )
      }
      const cap = Method.requirement(method, revision)
      if (cap !== undefined && cap.of === "server" && !Method.hasCapability(this.serverCapabilities, cap.path)) {
        return Effect.fail(new CapabilityMissing({ method, of: "server", capability: capabilityName(cap.path) }))
      }
      const stateless = this.stateless
      const own = record(params)._meta
      const withMeta = stateless
        ? {
          ...(params as object | undefined),
          _meta: own === undefined ? this.statelessMeta(revision) : { ...record(own), ...this.statelessMeta(revision) }
        }
        : params
      const encoded = Codec.encodeParams(method, revision, withMeta)
      if (Either.isLeft(encoded)) {
        return Effect.fail(
          new ProtocolViolation({ reason: `invalid ${method} params: ${Codec.describe(encoded.left)}` })
        )
      }
      const base = encoded.right as Record<string, unknown> | undefined
      if (!stateless) {
        return Effect.flatMap(
          this.engine.request(method, base, callOptions),
          (result) => this.decodeResult(method, result)
        )
      }
      const cacheKey = cacheableMethods.has(method) ? `${method} ${JSON.stringify(base ?? {})}` : undefined
      if (cacheKey === undefined) return this.round(method, base, callOptions, cacheKey, 0, undefined)
      return Effect.clockWith((clock) => {
        const hit = this.listCache?.get(cacheKey)
        return hit !== undefined && hit.expires > clock.unsafeCurrentTimeMillis()
          ? Effect.succeed(hit.result as Method.ClientRequests[M]["result"])
          : this.round(method, base, callOptions, cacheKey, 0, undefined)
      })
    })

  readonly ping = (o?: CallOptions) => Effect.asVoid(this.request("ping", undefined, o))

  readonly listTools = () =>
    allPages((c) => this.request("tools/list", paged(c)), (p: Mcp.ListToolsResult) => p.tools).pipe(
      Effect.tap((tools) =>
        Effect.sync(() => {
          this.outputSchemas?.clear()
          for (const t of tools) {
            if (t.outputSchema !== undefined) (this.outputSchemas ??= new Map()).set(t.name, t.outputSchema)
          }
        })
      )
    )

  readonly callTool: McpClientService["callTool"] = (name, args, callOptions) =>
    this.request("tools/call", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
      Effect.flatMap((result) => this.validated(name, result))
    )

  readonly callToolAsTask: McpClientService["callToolAsTask"] = (name, args, taskOptions) => {
    const client = this
    return Effect.gen(function*() {
      const { ttl, ...callOptions } = taskOptions ?? {}
      const { engine, revision, serverCapabilities, stateless } = client
      const base = args === undefined ? { name } : { name, arguments: args }
      let created: Mcp.Task
      if (stateless) {
        const params = {
          ...base,
          _meta: { ...client.statelessMeta(revision), [metaKeys.clientCapabilities]: client.taskCapabilities() }
        }
        const encoded = Codec.encodeParams("tools/call", revision, params)
        if (Either.isLeft(encoded)) {
          return yield* new ProtocolViolation({
            reason: `invalid tools/call params: ${Codec.describe(encoded.left)}`
          })
        }
        const raw = yield* engine.request("tools/call", encoded.right as Record<string, unknown>, callOptions)
        if (raw.resultType !== "task") {
          return yield* new ProtocolViolation({ reason: `tools/call ${name} did not create a task` })
        }
        created = yield* taskOf(raw, "task")
      } else {
        if (Method.info("tasks/get")?.revisions.includes(revision) !== true) {
          return yield* new McpError.MethodNotFound({
            message: `tasks do not exist in revision ${revision}`,
            method: "tasks/get"
          })
        }
        if (record(serverCapabilities.tasks?.requests?.tools).call === undefined) {
          return yield* new CapabilityMissing({
            method: "tools/call",
            of: "server",
            capability: "tasks.requests.tools.call"
          })
        }
        const params = { ...base, task: ttl === undefined ? {} : { ttl } }
        const encoded = Codec.encodeParams("tools/call", revision, params)
        if (Either.isLeft(encoded)) {
          return yield* new ProtocolViolation({
            reason: `invalid tools/call params: ${Codec.describe(encoded.left)}`
          })
        }
        const raw = yield* engine.request("tools/call", encoded.right as Record<string, unknown>, callOptions)
        const result = yield* decodeAs<Mcp.CreateTaskResult>("CreateTaskResult", revision, raw, "task")
        created = result.task
      }
      const taskId = created.taskId
      const status: Effect.Effect<Mcp.Task, McpClientError> = stateless
        ? Effect.flatMap(client.extensionRequest("tasks/get", taskId), (raw) => taskOf(raw, "tasks/get result"))
        : client.request("tasks/get", { taskId })
      const cancel: Effect.Effect<Mcp.Task, McpClientError> = stateless
        ? Effect.flatMap(client.extensionRequest("tasks/cancel", taskId), (raw) => taskOf(raw, "tasks/cancel result"))
        : client.request("tasks/cancel", { taskId })
      const outcome: Effect.Effect<Mcp.CallToolResult, McpClientError> = stateless
        ? Effect.gen(function*() {
          const raw = yield* client.extensionRequest("tasks/get", taskId)
          if (isRecord(raw.error)) {
            return yield* Effect.fail(McpError.fromWire(raw.error as unknown as JsonRpc.ErrorObject))
          }
          if (!isRecord(raw.result)) {
            return yield* new ProtocolViolation({
              reason: `task ${taskId} ended (${String(raw.status)}) without a result`
            })
          }
          return yield* decodeAs<Mcp.CallToolResult>("CallToolResult", "domain", raw.result, "task result")
        })
        : Effect.flatMap(
          client.request("tasks/result", { taskId }),
          (raw) => decodeAs<Mcp.CallToolResult>("CallToolResult", revision, raw, "tasks/result result")
        )
      const result = Effect.gen(function*() {
        let task = created
        while (!ended(task.status)) {
          yield* Effect.sleep(task.pollInterval ?? 1000)
          task = yield* status
        }
        return yield* Effect.flatMap(outcome, (r) => client.validated(name, r))
      })
      return { taskId, created, status, result, cancel }
    })
  }

  readonly callToolStream: McpClientService["callToolStream"] = (name, args, callOptions) =>
    Stream.unwrapScoped(
      Effect.gen(this, function*() {
        // A consumer slower than the server's progress sees the newest updates (older ones are dropped),
        // and always the result: memory stays bounded however fast the server reports.
        const mailbox = yield* Mailbox.make<CallEvent<Mcp.CallToolResult>, McpClientError>({
          capacity: progressWindow,
          strategy: "sliding"
        })
        yield* this.callTool(name, args, {
          ...callOptions,
          onProgress: (progress) => {
            mailbox.unsafeOffer({ _tag: "Progress", progress })
          }
        }).pipe(
          Effect.matchEffect({
            onFailure: (e) => mailbox.fail(e),
            onSuccess: (result) => mailbox.offer({ _tag: "Result", result }).pipe(Effect.zipRight(mailbox.end))
          }),
          Effect.forkScoped
        )
        return Mailbox.toStream(mailbox)
      })
    )

  readonly listResources = () =>
    allPages((c) => this.request("resources/list", paged(c)), (p: Mcp.ListResourcesResult) => p.resources)

  readonly listResourceTemplates = () =>
    allPages(
      (c) => this.request("resources/templates/list", paged(c)),
      (p: Mcp.ListResourceTemplatesResult) => p.resourceTemplates
    )

  readonly readResource = (uri: string, o?: CallOptions) => this.request("resources/read", { uri }, o)

  readonly subscribe = (uri: string) => Effect.asVoid(this.request("resources/subscribe", { uri }))

  readonly unsubscribe = (uri: string) => Effect.asVoid(this.request("resources/unsubscribe", { uri }))

  readonly listPrompts = () =>
    allPages((c) => this.request("prompts/list", paged(c)), (p: Mcp.ListPromptsResult) => p.prompts)

  readonly getPrompt = (name: string, args?: Readonly<Record<string, string>>, o?: CallOptions) =>
    this.request("prompts/get", args === undefined ? { name } : { name, arguments: args }, o)

  readonly complete = (params: Mcp.CompleteRequestParams) => this.request("completion/complete", params)

  readonly setLoggingLevel = (level: Mcp.LoggingLevel) =>
    this.stateless
      ? Effect.sync(() => {
        this.logLevel = level
      })
      : Effect.asVoid(this.request("logging/setLevel", { level }))

  readonly listen = (filter: Mcp.SubscriptionFilter) =>
    Stream.unwrapScoped(
      Effect.gen(this, function*() {
        const queue = yield* PubSub.subscribe(this.notificationHub())
        let id: JsonRpc.RequestId | undefined
        const call = yield* Effect.forkScoped(
          this.engine.request("subscriptions/listen", {
            notifications: filter,
            _meta: this.statelessMeta(this.revision)
          }, {
            onId: (i) => {
              id = i
            },
            timeout: "365 days"
          })
        )
        const ours = Stream.fromQueue(queue).pipe(
          Stream.filter((n) => id !== undefined && record(n.params?._meta)[metaKeys.subscriptionId] === id)
        )
        const ended = Stream.fromEffect(Effect.asVoid(Effect.either(call.await))).pipe(Stream.drain)
        return Stream.merge(ours, ended, { haltStrategy: "either" })
      })
    )
}

/** The default bound of the `server/discover` probe. */
const defaultProbeTimeout = Duration.seconds(5)

/** The bound of the `server/discover` probe: the probe timeout, never longer than the request timeout. */
const probeBound = (options: Options): Duration.Duration => {
  const bound = Duration.decode(options.probeTimeout ?? defaultProbeTimeout)
  return options.requestTimeout === undefined ? bound : Duration.min(bound, Duration.decode(options.requestTimeout))
}

/**
 * Probes with `server/discover`: the stateless client when the server speaks 2026-07-28, `"unanswered"` when no
 * answer came within `bound` (the probe is then cancelled on the wire), else undefined (the server refused it).
 */
const probe = (client: Client, remember: (era: Era) => Effect.Effect<void>, bound?: Duration.Duration) =>
  Effect.gen(function*() {
    const discover = client.engine.request("server/discover", {
      _meta: client.statelessMeta(Revision.stateless)
    }).pipe(
      Effect.map((r) => Codec.decodeResult("server/discover", Revision.stateless, r)),
      Effect.map((r) => (Either.isRight(r) ? (r.right as Mcp.DiscoverResult) : undefined)),
      // The server answered (a JSON-RPC error, or an HTTP error with no JSON-RPC body): it does not speak
      // 2026-07-28, so `initialize` follows. Refused credentials or a broken connection end the handshake at once.
      Effect.catchAll((e) =>
        McpError.isMcpError(e) || (e._tag === "TransportError" && e.status !== undefined)
          ? Effect.succeed(undefined)
          : Effect.fail(new HandshakeFailed({ reason: `server/discover failed: ${describe(e)}`, cause: e }))
      )
    )
    const answer = yield* (bound === undefined ? Effect.asSome(discover) : Effect.timeoutOption(discover, bound))
    if (Option.isNone(answer)) return "unanswered" as const
    const discovered = answer.value
    if (discovered === undefined || !discovered.supportedVersions.includes(Revision.stateless)) return undefined
    yield* remember("stateless")
    return client.connected({
      revision: Revision.stateless,
      stateless: true,
      serverInfo: (discovered._meta?.[metaKeys.serverInfo] as Mcp.Implementation | undefined) ??
        { name: "unknown", version: "unknown" },
      serverCapabilities: discovered.capabilities,
      instructions: discovered.instructions
    })
  })

/** The `initialize` handshake, offering the pinned revision or else the newest handshake revision. */
const greet = (client: Client, remember: (era: Era) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const pinned = client.options.revision
    const requested = pinned ?? Revision.latestHandshake
    // Encoded for the offered revision, so that capabilities it does not define (elicitation before
    // 2025-06-18, tasks before 2025-11-25) are not declared to a server that would then use them.
    const initParams = Codec.encodeParams("initialize", requested, {
      protocolVersion: requested,
      capabilities: client.capabilities,
      clientInfo: client.clientInfo
    })
    if (Either.isLeft(initParams)) {
      return yield* new HandshakeFailed({ reason: `invalid initialize params: ${Codec.describe(initParams.left)}` })
    }
    client.revision = requested
    const initResult = yield* client.engine.request("initialize", initParams.right as Record<string, unknown>).pipe(
      Effect.mapError((cause) => new HandshakeFailed({ reason: `initialize failed: ${describe(cause)}`, cause }))
    )
    const negotiated = initResult.protocolVersion
    if (!Revision.isRevision(negotiated) || Revision.isStateless(negotiated)) {
      return yield* new HandshakeFailed({ reason: `the server chose an unsupported revision ${String(negotiated)}` })
    }
    if (pinned !== undefined && negotiated !== pinned) {
      return yield* new HandshakeFailed({
        reason: `the client is pinned to ${pinned} but the server answered ${negotiated}`
      })
    }
    client.revision = negotiated
    const init = Codec.decodeResult("initialize", negotiated, initResult)
    if (Either.isLeft(init)) {
      return yield* new HandshakeFailed({ reason: `invalid initialize result: ${Codec.describe(init.left)}` })
    }
    const initialized = init.right as Mcp.InitializeResult
    if (pinned === undefined) yield* remember("handshake")
    yield* client.engine.notify("notifications/initialized", undefined).pipe(
      Effect.mapError((cause) => new HandshakeFailed({ reason: "could not send notifications/initialized", cause }))
    )
    return client.connected({
      revision: negotiated,
      stateless: false,
      serverInfo: initialized.serverInfo,
      serverCapabilities: initialized.capabilities,
      instructions: initialized.instructions
    })
  })

/** Negotiates: `server/discover` first, `initialize` as the fallback (or as pinned, or as remembered). */
const negotiate = (client: Client): Effect.Effect<Client, HandshakeFailed> =>
  Effect.gen(function*() {
    const options = client.options
    const memory = yield* NegotiationMemory
    const remembered = options.server === undefined || options.revision !== undefined
      ? Option.none<Era>()
      : yield* memory.get(options.server)
    const remember = (era: Era) => (options.server === undefined ? Effect.void : memory.set(options.server, era))
    if (options.revision !== undefined) {
      if (!Revision.isStateless(options.revision)) return yield* greet(client, remember)
      const stateless = yield* probe(client, remember)
      if (stateless instanceof Client) return stateless
      return yield* new HandshakeFailed({
        reason: "the client is pinned to 2026-07-28 but the server does not speak it"
      })
    }
    // Greets with `initialize`; should the server refuse it (it speaks 2026-07-28 only, and is alive: it answered),
    // probes with no short bound.
    const greetOrProbe = greet(client, remember).pipe(
      Effect.catchIf(
        (e) => McpError.isMcpError(e.cause) && e.cause._tag !== "RequestTimeout",
        (e) =>
          Effect.flatMap(
            probe(client, remember),
            (stateless) => (stateless instanceof Client ? Effect.succeed(stateless) : Effect.fail(e))
          )
      )
    )
    // Remembered as handshake-only (it refused or ignored the probe before): greeted with `initialize` straight away.
    if (Option.getOrUndefined(remembered) === "handshake") return yield* greetOrProbe
    const stateless = yield* probe(client, remember, probeBound(options))
    if (stateless instanceof Client) return stateless
    // A server that ignored the probe (or answered it with another id) may just have been slow to start: should it
    // refuse `initialize`, it is probed again, with the request timeout.
    return yield* (stateless === "unanswered" ? greetOrProbe : greet(client, remember))
  })

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

const describe = (cause: unknown): string =>
  isRecord(cause) && typeof cause.message === "string" && cause.message !== ""
    ? cause.message
    : isRecord(cause) && typeof cause.reason === "string"
    ? cause.reason
    : String(cause)

/** A connected client as a Layer over the current Transport (handlers are picked up when provided). */
export const layer = (options: Options): Layer.Layer<McpClient, HandshakeFailed, Transport.Transport> =>
  Layer.scoped(McpClient, make(options))
