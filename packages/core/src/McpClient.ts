/**
 * McpClient: a typed MCP client over the current Transport. The Layer performs the handshake,
 * exposes every client→server method with domain types, turns server notifications into Streams,
 * and answers server→client requests through the optional ClientHandlers services.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
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
import * as Transport from "./Transport.js"

/** Every way a client call can fail. */
export type McpClientError =
  | McpError.McpError
  | ConnectionClosed
  | Transport.TransportError
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

/** An in-process negotiation memory. */
export const makeNegotiationMemory = (): NegotiationMemoryService => {
  const eras = new Map<string, Era>()
  return {
    get: (server) => Effect.sync(() => Option.fromNullable(eras.get(server))),
    set: (server, era) => Effect.sync(() => void eras.set(server, era))
  }
}

/** Where clients remember negotiation outcomes; by default one in-process memory shared by every client. */
export class NegotiationMemory extends Context.Reference<NegotiationMemory>()(
  "@effect-mcp/core/McpClient/NegotiationMemory",
  { defaultValue: makeNegotiationMemory }
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
  /** Calls a tool; validates `structuredContent` against the tool's `outputSchema` when known. */
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

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

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

const record = (u: unknown): Record<string, unknown> => (isRecord(u) ? u : {})

const capabilityName = (path: ReadonlyArray<string>) => path.join(".")

/** Connects over the current Transport and performs the handshake. */
export const make = (
  options: Options
): Effect.Effect<McpClientService, HandshakeFailed, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const sampling = yield* Effect.serviceOption(ClientHandlers.SamplingHandler)
    const elicitation = yield* Effect.serviceOption(ClientHandlers.ElicitationHandler)
    const roots = yield* Effect.serviceOption(ClientHandlers.RootsProvider)
    // The notification hub is made for its first reader (synchronously): until then a notification has no reader
    // and is dropped, as a hub without subscribers would drop it.
    let hub: PubSub.PubSub<JsonRpc.Notification> | undefined
    const notifications = () => (hub ??= Effect.runSync(PubSub.unbounded<JsonRpc.Notification>()))
    const outputSchemas = new Map<string, unknown>()
    let revision: Revision.Revision = options.revision ?? Revision.latestHandshake

    const capabilities: Mcp.ClientCapabilities = {
      ...options.capabilities,
      ...(Option.isSome(roots) ? { roots: { listChanged: roots.value.changes !== undefined } } : {}),
      ...(Option.isSome(sampling) ? { sampling: sampling.value.tools === true ? { tools: {} } : {} } : {}),
      ...(Option.isSome(elicitation)
        ? {
          elicitation: Object.fromEntries((elicitation.value.modes ?? ["form"]).map((m) => [m, {}]))
        }
        : {})
    }

    const answer = <A>(method: string, params: unknown, run: (p: never) => Effect.Effect<A, McpError.McpError>) => {
      const decoded = Codec.decodeParamsLenient(method, revision, params)
      if (Either.isLeft(decoded)) {
        return Effect.fail<JsonRpc.ErrorObject>({
          code: McpError.codes.InvalidParams,
          message: `Invalid params for ${method}: ${Codec.describe(decoded.left)}`
        })
      }
      return run(decoded.right as never).pipe(
        Effect.flatMap((result) => {
          const encoded = Codec.encodeResultLenient(method, revision, result)
          return Either.isRight(encoded)
            ? Effect.succeed(encoded.right as Record<string, unknown>)
            : Effect.fail(
              new McpError.InternalError({ message: `Invalid ${method} result: ${Codec.describe(encoded.left)}` })
            )
        }),
        Effect.mapError((e) => (McpError.isMcpError(e) ? McpError.toWire(e, revision) : e))
      )
    }

    const notFound = (method: string) =>
      Effect.fail<JsonRpc.ErrorObject>({ code: McpError.codes.MethodNotFound, message: `Method not found: ${method}` })

    const engine = yield* Engine.make({
      onRequest: (request) => {
        switch (request.method) {
          case "ping":
            return Effect.succeed({})
          case "sampling/createMessage":
            return Option.isSome(sampling)
              ? answer(request.method, request.params, sampling.value.createMessage)
              : notFound(request.method)
          case "elicitation/create":
            return Option.isSome(elicitation)
              ? answer(request.method, request.params, elicitation.value.elicit)
              : notFound(request.method)
          case "roots/list":
            return Option.isSome(roots)
              ? answer(request.method, request.params, () => Effect.map(roots.value.roots, (r) => ({ roots: r })))
              : notFound(request.method)
          default:
            return notFound(request.method)
        }
      },
      toWire: (error) => error,
      onNotification: (notification) =>
        hub === undefined ? Effect.void : Effect.asVoid(PubSub.publish(hub, notification)),
      acceptsBatch: () => false
    }, options.requestTimeout === undefined ? {} : { defaultTimeout: options.requestTimeout })

    // ---------- negotiation: server/discover first, initialize as the fallback ----------

    const clientInfo = {
      name: options.name,
      version: options.version,
      ...(options.title ? { title: options.title } : {})
    }
    let logLevel: Mcp.LoggingLevel | undefined
    // The same for every request until the revision or the log level changes: built once, not per request.
    let metaCache: { readonly rev: Revision.Revision; readonly level: unknown; readonly meta: object } | undefined
    const statelessMeta = (rev: Revision.Revision): object => {
      if (metaCache === undefined || metaCache.rev !== rev || metaCache.level !== logLevel) {
        metaCache = {
          rev,
          level: logLevel,
          meta: {
            [metaKeys.protocolVersion]: rev,
            [metaKeys.clientInfo]: clientInfo,
            [metaKeys.clientCapabilities]: capabilities,
            ...(logLevel === undefined ? {} : { [metaKeys.logLevel]: logLevel })
          }
        }
      }
      return metaCache.meta
    }
    const memory = yield* NegotiationMemory
    const remembered = options.server === undefined || options.revision !== undefined
      ? Option.none<Era>()
      : yield* memory.get(options.server)
    const remember = (era: Era) => (options.server === undefined ? Effect.void : memory.set(options.server, era))
    /** Probes with `server/discover`: the stateless client when the server speaks 2026-07-28, else undefined. */
    const probe = Effect.gen(function*() {
      const discovered = yield* engine.request("server/discover", { _meta: statelessMeta(Revision.stateless) }).pipe(
        Effect.map((r) => Codec.decodeResult("server/discover", Revision.stateless, r)),
        Effect.map((r) => (Either.isRight(r) ? (r.right as Mcp.DiscoverResult) : undefined)),
        Effect.catchAll((e) =>
          e._tag === "ConnectionClosed" || e._tag === "TransportError"
            ? Effect.fail(new HandshakeFailed({ reason: `server/discover failed: ${describe(e)}`, cause: e }))
            : Effect.succeed(undefined)
        )
      )
      if (discovered === undefined || !discovered.supportedVersions.includes(Revision.stateless)) return undefined
      yield* remember("stateless")
      revision = Revision.stateless
      return yield* finish(build({
        revision: Revision.stateless,
        stateless: true,
        serverInfo: (discovered._meta?.[metaKeys.serverInfo] as Mcp.Implementation | undefined) ??
          { name: "unknown", version: "unknown" },
        serverCapabilities: discovered.capabilities,
        instructions: discovered.instructions
      }))
    })

    /** The `initialize` handshake, offering the pinned revision or else the newest handshake revision. */
    const greet = Effect.gen(function*() {
      const requested = options.revision ?? Revision.latestHandshake
      // Encoded for the offered revision, so that capabilities it does not define (elicitation before
      // 2025-06-18, tasks before 2025-11-25) are not declared to a server that would then use them.
      const initParams = Codec.encodeParams("initialize", requested, {
        protocolVersion: requested,
        capabilities,
        clientInfo
      })
      if (Either.isLeft(initParams)) {
        return yield* new HandshakeFailed({ reason: `invalid initialize params: ${Codec.describe(initParams.left)}` })
      }
      revision = requested
      const initResult = yield* engine.request("initialize", initParams.right as Record<string, unknown>).pipe(
        Effect.mapError((cause) => new HandshakeFailed({ reason: `initialize failed: ${describe(cause)}`, cause }))
      )
      const negotiated = initResult.protocolVersion
      if (!Revision.isRevision(negotiated) || Revision.isStateless(negotiated)) {
        return yield* new HandshakeFailed({ reason: `the server chose an unsupported revision ${String(negotiated)}` })
      }
      if (options.revision !== undefined && negotiated !== options.revision) {
        return yield* new HandshakeFailed({
          reason: `the client is pinned to ${options.revision} but the server answered ${negotiated}`
        })
      }
      revision = negotiated
      const init = Codec.decodeResult("initialize", revision, initResult)
      if (Either.isLeft(init)) {
        return yield* new HandshakeFailed({ reason: `invalid initialize result: ${Codec.describe(init.left)}` })
      }
      const initialized = init.right as Mcp.InitializeResult
      if (options.revision === undefined) yield* remember("handshake")
      yield* engine.notify("notifications/initialized", undefined).pipe(
        Effect.mapError((cause) => new HandshakeFailed({ reason: "could not send notifications/initialized", cause }))
      )
      return yield* finish(build({
        revision,
        stateless: false,
        serverInfo: initialized.serverInfo,
        serverCapabilities: initialized.capabilities,
        instructions: initialized.instructions
      }))
    })

    if (options.revision !== undefined) {
      if (!Revision.isStateless(options.revision)) return yield* greet
      const stateless = yield* probe
      if (stateless !== undefined) return stateless
      return yield* new HandshakeFailed({
        reason: "the client is pinned to 2026-07-28 but the server does not speak it"
      })
    }
    if (Option.getOrUndefined(remembered) === "handshake") {
      // Remembered as handshake-only: greeted with `initialize` straight away, with no probe to fail first. Should
      // the server refuse it now (it was upgraded to 2026-07-28 only), the probe still finds it.
      return yield* greet.pipe(
        Effect.catchIf(
          (e) => McpError.isMcpError(e.cause),
          (e) =>
            Effect.flatMap(probe, (stateless) => (stateless === undefined ? Effect.fail(e) : Effect.succeed(stateless)))
        )
      )
    }
    const stateless = yield* probe
    return stateless ?? (yield* greet)

    function finish(service: McpClientService) {
      return Effect.gen(function*() {
        if (Option.isSome(roots) && roots.value.changes !== undefined && !service.stateless) {
          yield* roots.value.changes.pipe(
            Stream.runForEach(() => Effect.ignore(engine.notify("notifications/roots/list_changed", undefined))),
            Effect.forkScoped
          )
        }
        return service
      })
    }

    function build(connection: {
      readonly revision: Revision.Revision
      readonly stateless: boolean
      readonly serverInfo: Mcp.Implementation
      readonly serverCapabilities: Mcp.ServerCapabilities
      readonly instructions: string | undefined
    }): McpClientService {
      const { serverCapabilities, stateless } = connection
      revision = connection.revision
      const maxRounds = options.maxInputRounds ?? 8
      const listCache = new Map<string, { readonly expires: number; readonly result: unknown }>()

      // ---------- calls ----------

      const request = <M extends keyof Method.ClientRequests>(
        method: M,
        params: Method.ClientRequests[M]["params"],
        callOptions?: CallOptions
      ): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> =>
        Effect.suspend((): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> => {
          const facts = Method.info(method)
          if (facts === undefined || !facts.revisions.includes(revision)) {
            return Effect.fail(
              new McpError.MethodNotFound({ message: `${method} does not exist in revision ${revision}`, method })
            )
          }
          const cap = Method.requirement(method, revision)
          if (cap !== undefined && cap.of === "server" && !Method.hasCapability(serverCapabilities, cap.path)) {
            return Effect.fail(new CapabilityMissing({ method, of: "server", capability: capabilityName(cap.path) }))
          }
          const own = record(params)._meta
          const withMeta = stateless
            ? {
              ...(params as object | undefined),
              _meta: own === undefined ? statelessMeta(revision) : { ...record(own), ...statelessMeta(revision) }
            }
            : params
          const encoded = Codec.encodeParams(method, revision, withMeta)
          if (Either.isLeft(encoded)) {
            return Effect.fail(
              new ProtocolViolation({ reason: `invalid ${method} params: ${Codec.describe(encoded.left)}` })
            )
          }
          const base = encoded.right as Record<string, unknown> | undefined
          const decodeOne = (result: Record<string, unknown>) => {
            const decoded = Codec.decodeResultLenient(method, revision, result)
            return Either.isRight(decoded)
              ? Effect.succeed(decoded.right as Method.ClientRequests[M]["result"])
              : Effect.fail(
                new ProtocolViolation({
                  reason: `the server's ${method} result is invalid: ${Codec.describe(decoded.left)}`
                })
              )
          }
          if (!stateless) return Effect.flatMap(engine.request(method, base, callOptions), decodeOne)
          const cacheKey = cacheableMethods.has(method) ? `${method} ${JSON.stringify(base ?? {})}` : undefined
          type Result = Method.ClientRequests[M]["result"]
          /** One round: the request (with the answers to the last round's input requests), then the next round. */
          const round = (
            n: number,
            extra: Record<string, unknown> | undefined
          ): Effect.Effect<Result, McpClientError> =>
            Effect.flatMap(
              engine.request(method, extra === undefined ? base : { ...base, ...extra }, callOptions),
              (raw) => {
                if (raw.resultType !== "input_required") {
                  if (cacheKey === undefined) return decodeOne(raw)
                  return Effect.flatMap(decodeOne(raw), (result) => {
                    const ttl = (result as { ttlMs?: number }).ttlMs
                    if (typeof ttl !== "number" || ttl <= 0) return Effect.succeed(result)
                    return Effect.clockWith((clock) => {
                      listCache.set(cacheKey, { expires: clock.unsafeCurrentTimeMillis() + ttl, result })
                      return Effect.succeed(result)
                    })
                  })
                }
                if (n >= maxRounds) {
                  return Effect.fail(
                    new ProtocolViolation({ reason: `${method} still required input after ${maxRounds} rounds` })
                  )
                }
                return Effect.gen(function*() {
                  const inputResponses: Record<string, unknown> = {}
                  for (const [key, input] of Object.entries(record(raw.inputRequests))) {
                    inputResponses[key] = yield* answerInput(record(input))
                  }
                  return yield* round(n + 1, {
                    inputResponses,
                    ...(typeof raw.requestState === "string" ? { requestState: raw.requestState } : {})
                  })
                })
              }
            )
          if (cacheKey === undefined) return round(0, undefined)
          return Effect.clockWith((clock) => {
            const hit = listCache.get(cacheKey)
            return hit !== undefined && hit.expires > clock.unsafeCurrentTimeMillis()
              ? Effect.succeed(hit.result as Result)
              : round(0, undefined)
          })
        })

      const answerInput = (input: Record<string, unknown>): Effect.Effect<unknown, McpClientError> => {
        const method = String(input.method)
        const params = input.params
        const run = <A>(handler: (p: never) => Effect.Effect<A, McpError.McpError>) => {
          const decoded = Codec.decode(revision, inputParamTypes[method] ?? "", params ?? {})
          return Either.isLeft(decoded)
            ? Effect.fail(
              new ProtocolViolation({ reason: `invalid ${method} input request: ${Codec.describe(decoded.left)}` })
            )
            : handler(decoded.right as never)
        }
        switch (method) {
          case "sampling/createMessage":
            return Option.isSome(sampling)
              ? run(sampling.value.createMessage)
              : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "sampling" }))
          case "elicitation/create":
            return Option.isSome(elicitation)
              ? run(elicitation.value.elicit)
              : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "elicitation" }))
          case "roots/list":
            return Option.isSome(roots)
              ? Effect.map(roots.value.roots, (r) => ({ roots: r }))
              : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "roots" }))
          default:
            return Effect.fail(new ProtocolViolation({ reason: `unknown input request ${method}` }))
        }
      }

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

      const paged = (cursor: string | undefined) => (cursor === undefined ? undefined : { cursor })

      const listTools = () =>
        allPages((c) => request("tools/list", paged(c)), (p: Mcp.ListToolsResult) => p.tools).pipe(
          Effect.tap((tools) =>
            Effect.sync(() => {
              outputSchemas.clear()
              for (const t of tools) if (t.outputSchema !== undefined) outputSchemas.set(t.name, t.outputSchema)
            })
          )
        )

      const validated = (name: string, result: Mcp.CallToolResult | Mcp.InputRequiredResult) => {
        if (!("content" in result)) {
          return Effect.fail(
            new ProtocolViolation({ reason: `tools/call ${name} returned an unexpected ${result.resultType} result` })
          )
        }
        const schema = outputSchemas.get(name)
        if (schema === undefined || result.isError === true) return Effect.succeed(result)
        if (result.structuredContent === undefined) {
          return Effect.fail(
            new ProtocolViolation({ reason: `tool ${name} has an output schema but returned no structuredContent` })
          )
        }
        const problem = check(schema, result.structuredContent)
        return problem === undefined
          ? Effect.succeed(result)
          : Effect.fail(
            new ProtocolViolation({
              reason: `tool ${name} returned structuredContent that violates its outputSchema: ${problem}`
            })
          )
      }

      const callTool: McpClientService["callTool"] = (name, args, callOptions) =>
        request("tools/call", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
          Effect.flatMap((result) => validated(name, result))
        )

      const decodeAs = <A>(type: string, rev: Revision.Revision | "domain", raw: unknown, what: string) => {
        const decoded = Codec.decode(rev, type, raw)
        return Either.isRight(decoded)
          ? Effect.succeed(decoded.right as A)
          : Effect.fail(
            new ProtocolViolation({ reason: `the server's ${what} is invalid: ${Codec.describe(decoded.left)}` })
          )
      }

      /** Under 2026-07-28 the task methods belong to an extension: sent with the request `_meta`, decoded by hand. */
      const extensionRequest = (method: string, taskId: string) =>
        engine.request(method, {
          taskId,
          _meta: { ...statelessMeta(revision), [metaKeys.clientCapabilities]: taskCapabilities }
        })
      const taskCapabilities: Mcp.ClientCapabilities = {
        ...capabilities,
        extensions: { ...capabilities.extensions, [tasksExtension]: {} }
      }

      const taskOf = (raw: Record<string, unknown>, what: string) => decodeAs<Mcp.Task>("Task", "domain", raw, what)

      const callToolAsTask: McpClientService["callToolAsTask"] = (name, args, taskOptions) =>
        Effect.gen(function*() {
          const { ttl, ...callOptions } = taskOptions ?? {}
          const base = args === undefined ? { name } : { name, arguments: args }
          let created: Mcp.Task
          if (stateless) {
            const params = {
              ...base,
              _meta: { ...statelessMeta(revision), [metaKeys.clientCapabilities]: taskCapabilities }
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
            ? Effect.flatMap(extensionRequest("tasks/get", taskId), (raw) => taskOf(raw, "tasks/get result"))
            : request("tasks/get", { taskId })
          const cancel: Effect.Effect<Mcp.Task, McpClientError> = stateless
            ? Effect.flatMap(extensionRequest("tasks/cancel", taskId), (raw) => taskOf(raw, "tasks/cancel result"))
            : request("tasks/cancel", { taskId })
          const outcome: Effect.Effect<Mcp.CallToolResult, McpClientError> = stateless
            ? Effect.gen(function*() {
              const raw = yield* extensionRequest("tasks/get", taskId)
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
              request("tasks/result", { taskId }),
              (raw) => decodeAs<Mcp.CallToolResult>("CallToolResult", revision, raw, "tasks/result result")
            )
          const result = Effect.gen(function*() {
            let task = created
            while (!ended(task.status)) {
              yield* Effect.sleep(task.pollInterval ?? 1000)
              task = yield* status
            }
            return yield* Effect.flatMap(outcome, (r) => validated(name, r))
          })
          return { taskId, created, status, result, cancel }
        })

      const callToolStream: McpClientService["callToolStream"] = (name, args, callOptions) =>
        Stream.unwrapScoped(
          Effect.gen(function*() {
            // A consumer slower than the server's progress sees the newest updates (older ones are dropped),
            // and always the result: memory stays bounded however fast the server reports.
            const mailbox = yield* Mailbox.make<CallEvent<Mcp.CallToolResult>, McpClientError>({
              capacity: progressWindow,
              strategy: "sliding"
            })
            yield* callTool(name, args, {
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

      // Streams of notifications are built on first use, not with the client: six eager Stream values cost about
      // 28 KB a connection, which a host with many servers would pay for streams it never reads.
      const byMethod = (method: string) =>
        Stream.fromPubSub(notifications()).pipe(Stream.filter((n) => n.method === method))
      const allNotifications = once(() => Stream.fromPubSub(notifications()))
      const toolListChanged = once(() => Stream.as(byMethod("notifications/tools/list_changed"), undefined))
      const resourceListChanged = once(() => Stream.as(byMethod("notifications/resources/list_changed"), undefined))
      const promptListChanged = once(() => Stream.as(byMethod("notifications/prompts/list_changed"), undefined))
      const resourceUpdated = once(() =>
        byMethod("notifications/resources/updated").pipe(Stream.map((n) => String(n.params?.uri)))
      )
      const logMessages = once(() =>
        byMethod("notifications/message").pipe(
          Stream.map((n) => n.params as unknown as Mcp.LoggingMessageNotificationParams)
        )
      )

      return {
        revision,
        serverInfo: connection.serverInfo,
        serverCapabilities,
        instructions: connection.instructions,
        stats: () => ({ pending: engine.pendingCount(), inFlight: engine.inFlight() }),
        request,
        ping: (o) => Effect.asVoid(request("ping", undefined, o)),
        listTools,
        callTool,
        callToolAsTask,
        callToolStream,
        listResources: () =>
          allPages((c) => request("resources/list", paged(c)), (p: Mcp.ListResourcesResult) => p.resources),
        listResourceTemplates: () =>
          allPages(
            (c) => request("resources/templates/list", paged(c)),
            (p: Mcp.ListResourceTemplatesResult) => p.resourceTemplates
          ),
        readResource: (uri, o) => request("resources/read", { uri }, o),
        subscribe: (uri) => Effect.asVoid(request("resources/subscribe", { uri })),
        unsubscribe: (uri) => Effect.asVoid(request("resources/unsubscribe", { uri })),
        listPrompts: () => allPages((c) => request("prompts/list", paged(c)), (p: Mcp.ListPromptsResult) => p.prompts),
        getPrompt: (name, args, o) =>
          request("prompts/get", args === undefined ? { name } : { name, arguments: args }, o),
        complete: (params) => request("completion/complete", params),
        setLoggingLevel: (level) =>
          stateless
            ? Effect.sync(() => {
              logLevel = level
            })
            : Effect.asVoid(request("logging/setLevel", { level })),
        listen: (filter) =>
          Stream.unwrapScoped(
            Effect.gen(function*() {
              const queue = yield* PubSub.subscribe(notifications())
              let id: JsonRpc.RequestId | undefined
              const call = yield* Effect.forkScoped(
                engine.request("subscriptions/listen", { notifications: filter, _meta: statelessMeta(revision) }, {
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
          ),
        stateless,
        get notifications() {
          return allNotifications()
        },
        get toolListChanged() {
          return toolListChanged()
        },
        get resourceListChanged() {
          return resourceListChanged()
        },
        get promptListChanged() {
          return promptListChanged()
        },
        get resourceUpdated() {
          return resourceUpdated()
        },
        get logMessages() {
          return logMessages()
        },
        closed: engine.closed
      }
    }
  })

/** A value made on first use and kept. */
const once = <A>(make: () => A): () => A => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

const describe = (cause: unknown): string =>
  isRecord(cause) && typeof cause.message === "string" && cause.message !== ""
    ? cause.message
    : isRecord(cause) && typeof cause.reason === "string"
    ? cause.reason
    : String(cause)

/** A connected client as a Layer over the current Transport (handlers are picked up when provided). */
export const layer = (options: Options): Layer.Layer<McpClient, HandshakeFailed, Transport.Transport> =>
  Layer.scoped(McpClient, make(options))
