/**
 * One connection's client, composed of the client modules: its state as fields, its operations as own accessors that
 * bind each on first use (destructuring them works; internal/operations.ts), and the engine's handlers of the
 * server's requests and notifications. The typed request path (method and capability gates, stateless `_meta`,
 * params encoding, result decoding) is here; the rest is delegated by concept.
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
import * as Operations from "../operations.js"
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

/** The operations of a client, made on first use (see internal/operations.ts). */
type ClientOperations =
  & Pick<
    McpClientService,
    | "stats"
    | "request"
    | "ping"
    | "listTools"
    | "callTool"
    | "callToolAsTask"
    | "callToolStream"
    | "listResources"
    | "listResourceTemplates"
    | "readResource"
    | "subscribe"
    | "unsubscribe"
    | "listPrompts"
    | "getPrompt"
    | "call"
    | "complete"
    | "setLoggingLevel"
    | "listen"
  >
  & Pick<TypedCalls.Untyped, "getPromptByName">

/** How each operation of a client is made (bound to it), on its first use. */
const operations: Operations.Makers<Client, ClientOperations> = {
  stats: (self) => (): ClientStats => ({ pending: self.engine.pendingCount(), inFlight: self.engine.inFlight() }),

  request: (self) =>
  <M extends keyof Method.ClientRequests>(
    method: M,
    params: Method.ClientRequests[M]["params"],
    callOptions?: CallOptions
  ): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> =>
    Effect.suspend((): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> => {
      const revision = self.revision
      const facts = Method.info(method)
      if (facts === undefined || !facts.revisions.includes(revision)) {
        return Effect.fail(
          new McpError.MethodNotFound({ message: `${method} does not exist in revision ${revision}`, method })
        )
      }
      const cap = Method.requirement(method, revision)
      if (cap !== undefined && cap.of === "server" && !Method.hasCapability(self.serverCapabilities, cap.path)) {
        return Effect.fail(new CapabilityMissing({ method, of: "server", capability: cap.path.join(".") }))
      }
      const stateless = self.stateless
      const encoded = Codec.encodeParams(
        method,
        revision,
        stateless ? withStatelessMeta(self, revision, params) : params
      )
      if (Either.isLeft(encoded)) {
        return Effect.fail(
          new ProtocolViolation({ reason: `invalid ${method} params: ${Codec.describe(encoded.left)}` })
        )
      }
      const base = encoded.right as Record<string, unknown> | undefined
      if (!stateless) {
        return Effect.flatMap(
          self.engine.request(method, base, callOptions),
          (result) => decodeResult(method, self.revision, result)
        )
      }
      const cacheKey = ListCache.cacheKey(method, base)
      if (cacheKey === undefined) return round(self, method, base, callOptions, cacheKey, 0, undefined)
      return ListCache.cachedOr(self, cacheKey, () => round(self, method, base, callOptions, cacheKey, 0, undefined))
    }),

  ping: (self) => (o?: CallOptions) => Effect.asVoid(self.request("ping", undefined, o)),

  listTools: (self) => () =>
    allPages((c) => self.request("tools/list", paged(c)), (p) => p.tools).pipe(
      Effect.tap((tools) => rememberOutputSchemas(self, tools))
    ),

  callTool: (self) => (name, args, callOptions) =>
    self.request("tools/call", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
      Effect.flatMap((result) => validated(self, name, result))
    ),

  callToolAsTask: (self) => (name, args, taskOptions) => callToolAsTask(self, name, args, taskOptions),

  callToolStream: (self) => (name, args, callOptions) => callToolStream(self.callTool, name, args, callOptions),

  listResources: (self) => () => allPages((c) => self.request("resources/list", paged(c)), (p) => p.resources),

  listResourceTemplates: (self) => () =>
    allPages((c) => self.request("resources/templates/list", paged(c)), (p) => p.resourceTemplates),

  readResource: (self) => (uri: string, o?: CallOptions) => self.request("resources/read", { uri }, o),

  subscribe: (self) => (uri: string) => Effect.asVoid(self.request("resources/subscribe", { uri })),

  unsubscribe: (self) => (uri: string) => Effect.asVoid(self.request("resources/unsubscribe", { uri })),

  listPrompts: (self) => () => allPages((c) => self.request("prompts/list", paged(c)), (p) => p.prompts),

  getPromptByName: (self) => (name: string, args?: Readonly<Record<string, string>>, o?: CallOptions) =>
    self.request("prompts/get", args === undefined ? { name } : { name, arguments: args }, o),

  getPrompt: (self) =>
  (
    prompt: string | TypedCalls.PromptContract<unknown, Prompt.Arguments, unknown, unknown>,
    args?: unknown,
    o?: CallOptions
  ) =>
    typeof prompt === "string"
      ? self.getPromptByName(prompt, args as Readonly<Record<string, string>> | undefined, o)
      : TypedCalls.getPrompt(self, prompt, args, o) as Effect.Effect<Mcp.GetPromptResult, McpClientError>,

  call: (self) =>
  (
    tool: TypedCalls.ToolContract<unknown, unknown, unknown, unknown, unknown, unknown>,
    input: unknown,
    o?: CallOptions
  ) => TypedCalls.callTool(self, tool, input, o) as Effect.Effect<never, never>,

  complete: (self) => (params: Mcp.CompleteRequestParams) => self.request("completion/complete", params),

  setLoggingLevel: (self) => (level: Mcp.LoggingLevel) =>
    self.stateless
      ? Effect.sync(() => {
        self.logLevel = level
      })
      : Effect.asVoid(self.request("logging/setLevel", { level })),

  listen: (self) => (filter: Mcp.SubscriptionFilter) => Notifications.listen(self, filter)
}

/** The operations' types on the class (declaration merging): each client defines them as own accessors. */
export interface Client extends ClientOperations {}

/**
 * One connection's client (see the module header). It is also the engine's handlers of the server's requests. Its
 * operations, Streams of notifications and `closed` are own accessor properties, defined once per client from shared
 * descriptors, so that destructuring works and a spread of the client (`{ ...client, callTool }`) copies them; an
 * operation is made (bound to the client) on its first use.
 */
export class Client implements McpClientService, Engine.Handlers<JsonRpc.ErrorObject>, Operations.Holder {
  [Operations.Made]: Record<string, unknown> | undefined = undefined
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
    Object.defineProperties(this, Client.#descriptors)
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

  static readonly #descriptors: PropertyDescriptorMap = {
    closed: {
      enumerable: true,
      get(this: Client) {
        return this.engine.closed
      }
    },
    ...Notifications.streamProperties,
    ...Operations.descriptors<Client, ClientOperations>(operations)
  }
  declare readonly closed: Effect.Effect<void>
  declare readonly notifications: Stream.Stream<JsonRpc.Notification>
  declare readonly toolListChanged: Stream.Stream<void>
  declare readonly resourceListChanged: Stream.Stream<void>
  declare readonly promptListChanged: Stream.Stream<void>
  declare readonly resourceUpdated: Stream.Stream<string>
  declare readonly logMessages: Stream.Stream<Mcp.LoggingMessageNotificationParams>
}
