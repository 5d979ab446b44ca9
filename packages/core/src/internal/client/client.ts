/**
 * One connection's client, composed of the client modules: its state as fields, its operations as bound functions
 * (destructuring them works), and the engine's handlers of the server's requests and notifications. The typed
 * request path (method and capability gates, stateless `_meta`, params encoding, result decoding) is here; the rest
 * is delegated by concept.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as PubSub from "effect/PubSub"
import type * as Stream from "effect/Stream"
import type * as ClientHandlers from "../../ClientHandlers.js"
import { CapabilityMissing, ProtocolViolation } from "../../Errors.js"
import type { CallOptions, ClientStats, McpClientError, McpClientService, Options } from "../../McpClient.js"
import type * as Prompt from "../../Prompt.js"
import type * as Engine from "../engine.js"
import { decodeResult } from "./decode.js"
import { round } from "./inputRequired.js"
import * as ListCache from "./listCache.js"
import type { Negotiated } from "./negotiation.js"
import * as Notifications from "./notifications.js"
import { allPages, paged } from "./pages.js"
import { callToolStream } from "./progressStream.js"
import { answerServerRequest } from "./serverRequests.js"
import { type MetaCache, withStatelessMeta } from "./statelessMeta.js"
import { callToolAsTask } from "./tasks.js"
import * as TypedCalls from "./typedCalls.js"
import { rememberOutputSchemas, validated } from "./validation.js"

/** The capabilities a client declares: its options' own, and those of the handlers it was given. */
const declaredCapabilities = (
  options: Options,
  sampling: Option.Option<ClientHandlers.SamplingHandlerService>,
  elicitation: Option.Option<ClientHandlers.ElicitationHandlerService>,
  roots: Option.Option<ClientHandlers.RootsProviderService>
): Mcp.ClientCapabilities => ({
  ...options.capabilities,
  ...(Option.isSome(roots) ? { roots: { listChanged: roots.value.changes !== undefined } } : {}),
  ...(Option.isSome(sampling) ? { sampling: sampling.value.tools === true ? { tools: {} } : {} } : {}),
  ...(Option.isSome(elicitation)
    ? {
      elicitation: Object.fromEntries((elicitation.value.modes ?? ["form"]).map((m) => [m, {}]))
    }
    : {})
})

/**
 * One connection's client (see the module header). It is also the engine's handlers of the server's requests. Its
 * Streams of notifications and its `closed` are own accessor properties, defined once per client from shared
 * descriptors, so that a spread of the client (`{ ...client, callTool }`) copies them, as it copies the operations.
 */
export class Client implements McpClientService, Engine.Handlers<JsonRpc.ErrorObject> {
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
  metaCache: MetaCache | undefined = undefined
  hub: PubSub.PubSub<JsonRpc.Notification> | undefined = undefined
  outputSchemas: Map<string, unknown> | undefined = undefined
  listCache: ListCache.ListCacheHolder["listCache"] = undefined
  streams: Record<string, Stream.Stream<unknown>> | undefined = undefined

  constructor(
    readonly options: Options,
    readonly sampling: Option.Option<ClientHandlers.SamplingHandlerService>,
    readonly elicitation: Option.Option<ClientHandlers.ElicitationHandlerService>,
    readonly roots: Option.Option<ClientHandlers.RootsProviderService>
  ) {
    this.revision = options.revision ?? Revision.latestHandshake
    this.capabilities = declaredCapabilities(options, sampling, elicitation, roots)
    this.clientInfo = {
      name: options.name,
      version: options.version,
      ...(options.title ? { title: options.title } : {})
    }
    Object.defineProperties(this, Client.#lazy)
  }

  /** Records what negotiation found. */
  connected(found: Negotiated): void {
    this.revision = found.revision
    this.stateless = found.stateless
    this.serverInfo = found.serverInfo
    this.serverCapabilities = found.serverCapabilities
    this.instructions = found.instructions
  }

  // ---------- the engine's handlers: the server's requests and notifications ----------

  onRequest(request: JsonRpc.Request): Effect.Effect<Record<string, unknown>, JsonRpc.ErrorObject> {
    return answerServerRequest(this, request)
  }

  toWire(error: JsonRpc.ErrorObject): JsonRpc.ErrorObject {
    return error
  }

  onNotification(notification: JsonRpc.Notification): Effect.Effect<void> {
    return Notifications.publish(this, notification)
  }

  acceptsBatch(): boolean {
    return false
  }

  // ---------- the McpClientService ----------

  static readonly #lazy: PropertyDescriptorMap = {
    closed: {
      enumerable: true,
      get(this: Client) {
        return this.engine.closed
      }
    },
    ...Notifications.streamProperties
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
        return Effect.fail(new CapabilityMissing({ method, of: "server", capability: cap.path.join(".") }))
      }
      const stateless = this.stateless
      const encoded = Codec.encodeParams(
        method,
        revision,
        stateless ? withStatelessMeta(this, revision, params) : params
      )
      if (Either.isLeft(encoded)) {
        return Effect.fail(
          new ProtocolViolation({ reason: `invalid ${method} params: ${Codec.describe(encoded.left)}` })
        )
      }
      const base = encoded.right as Record<string, unknown> | undefined
      if (!stateless) {
        return Effect.flatMap(
          this.engine.request(method, base, callOptions),
          (result) => decodeResult(method, this.revision, result)
        )
      }
      const cacheKey = ListCache.cacheKey(method, base)
      if (cacheKey === undefined) return round(this, method, base, callOptions, cacheKey, 0, undefined)
      return ListCache.cachedOr(this, cacheKey, () => round(this, method, base, callOptions, cacheKey, 0, undefined))
    })

  readonly ping = (o?: CallOptions) => Effect.asVoid(this.request("ping", undefined, o))

  readonly listTools = () =>
    allPages((c) => this.request("tools/list", paged(c)), (p) => p.tools).pipe(
      Effect.tap((tools) => rememberOutputSchemas(this, tools))
    )

  readonly callTool: McpClientService["callTool"] = (name, args, callOptions) =>
    this.request("tools/call", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
      Effect.flatMap((result) => validated(this, name, result))
    )

  readonly callToolAsTask: McpClientService["callToolAsTask"] = (name, args, taskOptions) =>
    callToolAsTask(this, name, args, taskOptions)

  readonly callToolStream: McpClientService["callToolStream"] = (name, args, callOptions) =>
    callToolStream(this.callTool, name, args, callOptions)

  readonly listResources = () => allPages((c) => this.request("resources/list", paged(c)), (p) => p.resources)

  readonly listResourceTemplates = () =>
    allPages((c) => this.request("resources/templates/list", paged(c)), (p) => p.resourceTemplates)

  readonly readResource = (uri: string, o?: CallOptions) => this.request("resources/read", { uri }, o)

  readonly subscribe = (uri: string) => Effect.asVoid(this.request("resources/subscribe", { uri }))

  readonly unsubscribe = (uri: string) => Effect.asVoid(this.request("resources/unsubscribe", { uri }))

  readonly listPrompts = () => allPages((c) => this.request("prompts/list", paged(c)), (p) => p.prompts)

  readonly getPromptByName = (name: string, args?: Readonly<Record<string, string>>, o?: CallOptions) =>
    this.request("prompts/get", args === undefined ? { name } : { name, arguments: args }, o)

  readonly getPrompt: McpClientService["getPrompt"] = (
    prompt: string | TypedCalls.PromptContract<unknown, Prompt.Arguments, unknown, unknown>,
    args?: unknown,
    o?: CallOptions
  ) =>
    typeof prompt === "string"
      ? this.getPromptByName(prompt, args as Readonly<Record<string, string>> | undefined, o)
      : TypedCalls.getPrompt(this, prompt, args, o) as Effect.Effect<Mcp.GetPromptResult, McpClientError>

  readonly call: McpClientService["call"] = (
    tool: TypedCalls.ToolContract<unknown, unknown, unknown, unknown, unknown, unknown>,
    input: unknown,
    o?: CallOptions
  ) => TypedCalls.callTool(this, tool, input, o) as Effect.Effect<never, never>

  readonly complete = (params: Mcp.CompleteRequestParams) => this.request("completion/complete", params)

  readonly setLoggingLevel = (level: Mcp.LoggingLevel) =>
    this.stateless
      ? Effect.sync(() => {
        this.logLevel = level
      })
      : Effect.asVoid(this.request("logging/setLevel", { level }))

  readonly listen = (filter: Mcp.SubscriptionFilter) => Notifications.listen(this, filter)
}
