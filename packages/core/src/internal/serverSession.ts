/**
 * One connection's server session: the handshake, per-method dispatch driven by the method table,
 * params decoded and results encoded for the negotiated revision, the RequestContext of each
 * request, subscriptions, log level, and list_changed notifications.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as RequestContext from "../RequestContext.js"
import type * as Transport from "../Transport.js"
import * as Engine from "./engine.js"
import * as Pagination from "./pagination.js"
import { type Owner, type Peer, RequestContextImpl } from "./requestContextImpl.js"
import * as Scoped from "./scoped.js"
import type { CacheableMethod, ChangeWatcher, ConnectionCounts, ListKind, McpServerService } from "./server/service.js"
import * as TaskStore from "./taskStore.js"

/** A running server session. */
export interface ServerSession {
  readonly engine: Engine.Engine
  readonly closed: Effect.Effect<void>
}

type Params = Record<string, unknown> | undefined

/** A handler under 2026-07-28 needs an answer the client has not given yet: ends the attempt with input_required. */
class InputRequired {
  constructor(readonly key: string, readonly request: unknown) {}
}

const metaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  relatedTask: "io.modelcontextprotocol/related-task"
} as const

/** The 2026 tasks extension's identifier (capability key under `extensions`). */
export const tasksExtension = "io.modelcontextprotocol/tasks"

const inputTypes: Record<string, { readonly request: string; readonly result: string }> = {
  "elicitation/create": { request: "ElicitRequest", result: "ElicitResult" },
  "sampling/createMessage": { request: "CreateMessageRequest", result: "CreateMessageResult" },
  "roots/list": { request: "ListRootsRequest", result: "ListRootsResult" }
}

const cacheable = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover"
])

const invalidParams = (message: string) => new McpError.InvalidParams({ message })
/** -32601 for `method` (a peer's method name, or a description that names it: cut to 256 characters). */
const methodNotFound = (method: string) => {
  const named = method.length > 256 ? `${method.slice(0, 256)}…` : method
  return new McpError.MethodNotFound({ message: `Method not found: ${named}`, method: named })
}

const record = (u: unknown): Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : {}

const noAnswers: Readonly<Record<string, unknown>> = Object.freeze({})

/**
 * The client as one 2026-07-28 request round sees it: from the request's `_meta`, with the answers gathered so far
 * (earlier rounds' signed state plus this round's responses). Asking for input it has no answer to ends the round
 * with `input_required`. One object per round, its operations on the prototype.
 */
class StatelessPeer implements Peer {
  readonly capabilities: Mcp.ClientCapabilities
  readonly clientInfo: Mcp.Implementation | undefined
  readonly #level: unknown
  #asked = 0

  constructor(
    meta: Record<string, unknown>,
    private readonly answers: Readonly<Record<string, unknown>>,
    private readonly rev: Revision.Revision
  ) {
    this.capabilities = record(meta[metaKeys.clientCapabilities]) as Mcp.ClientCapabilities
    this.clientInfo = meta[metaKeys.clientInfo] as Mcp.Implementation | undefined
    this.#level = meta[metaKeys.logLevel]
  }

  logLevel(): RequestContext.LoggingLevel | null {
    return typeof this.#level === "string" ? (this.#level as RequestContext.LoggingLevel) : null
  }

  ask(
    askMethod: string,
    askParams: unknown,
    required: Record<string, unknown>,
    satisfied: boolean
  ): Effect.Effect<unknown, McpError.McpError> {
    return Effect.suspend((): Effect.Effect<unknown, McpError.McpError> => {
      if (!satisfied) {
        return Effect.fail(
          new McpError.MissingRequiredClientCapability({
            message: `${askMethod} needs a client capability this request did not declare`,
            requiredCapabilities: required
          })
        )
      }
      const types = inputTypes[askMethod]!
      const key = `input-${this.#asked++}`
      if (key in this.answers) {
        const answer = Codec.decode(this.rev, types.result, this.answers[key])
        return Either.isRight(answer)
          ? Effect.succeed(answer.right)
          : Effect.fail(invalidParams(`Invalid input response ${key}: ${Codec.describe(answer.left)}`))
      }
      const encoded = Codec.encode(this.rev, types.request, { method: askMethod, params: askParams })
      return Either.isRight(encoded)
        ? Effect.die(new InputRequired(key, encoded.right))
        : Effect.fail(invalidParams(`Invalid ${askMethod} params: ${Codec.describe(encoded.left)}`))
    })
  }
}

type SessionHandler = (
  session: Session,
  params: Params,
  ctx: RequestContextImpl
) => Effect.Effect<unknown, McpError.McpError>

const listChangedMethod = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed"
} as const

const completion = (values: ReadonlyArray<string>) => ({
  completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 }
})

const related = (taskId: string) => ({ [metaKeys.relatedTask]: { taskId } })

const withRelated = (result: Mcp.CallToolResult, taskId: string): Mcp.CallToolResult => ({
  ...result,
  _meta: { ...record(result._meta), ...related(taskId) }
})

/** The outcome of a settled task, as a result or its error. */
const outcomeOf = (entry: TaskStore.TaskEntry) =>
  Effect.flatMap(Deferred.await(entry.outcome), (exit) =>
    Exit.isSuccess(exit)
      ? Effect.succeed(withRelated(exit.value, entry.task.taskId))
      : Exit.isInterrupted(exit) || Cause.isInterruptedOnly(exit.cause)
      ? Effect.fail(invalidParams(`Task ${entry.task.taskId} was cancelled`))
      : Effect.failCause(exit.cause))

/** Each handshake session's owner of tasks in the server's store (a counter: the store is the server's own). */
let sessionCount = 0

/** The peer of every stateless extension request: it can be asked nothing. */
const noPeer: Peer = {
  capabilities: {},
  clientInfo: undefined,
  logLevel: () => null,
  ask: (m) => Effect.fail(invalidParams(`${m} is not available here`))
}

/** The client of a handshake session, as every request's context sees it. */
class HandshakePeer implements Peer {
  constructor(private readonly session: Session) {}
  get capabilities(): Mcp.ClientCapabilities {
    return this.session.clientCapabilities
  }
  get clientInfo(): Mcp.Implementation | undefined {
    return this.session.clientInfo
  }
  logLevel(): RequestContext.LoggingLevel | undefined {
    return this.session.logLevel
  }
  ask(
    method: string,
    params: unknown,
    required: Record<string, unknown>,
    satisfied: boolean,
    rev: Revision.Revision,
    id: JsonRpc.RequestId
  ): Effect.Effect<unknown, McpError.McpError> {
    return this.session.clientRequest(method, rev, params, id, required, satisfied)
  }
}

/**
 * One connection's session: its state as fields and its operations on the prototype, with the method handlers in
 * module-level tables, so that a connection allocates a few objects rather than a closure per operation. It is the
 * engine's handlers, its requests' owner and the server's change watcher.
 */
class Session implements Engine.Handlers<McpError.McpError>, Owner, ChangeWatcher, ConnectionCounts {
  engine!: Engine.Engine
  /** The connection's scope. */
  scope!: Scope.Scope
  revision: Revision.Revision | undefined = undefined
  clientInfo: Mcp.Implementation | undefined = undefined
  clientCapabilities: Mcp.ClientCapabilities = {}
  serverCapabilities: Mcp.ServerCapabilities
  logLevel: RequestContext.LoggingLevel | undefined = undefined
  ready = false
  /** Whether `notifications/initialized` has come; server→client requests wait for it. */
  initialized = false
  /** Made for the first server→client request that comes before `notifications/initialized`. */
  whenInitialized: Deferred.Deferred<void> | undefined = undefined
  subscriptions: Set<string> | undefined = undefined
  changedKinds: Set<ListKind> | undefined = undefined
  flushDue = false
  readonly owner = `session:${++sessionCount}`
  readonly peer: Peer = new HandshakePeer(this)

  constructor(readonly server: McpServerService) {
    this.serverCapabilities = server.capabilities()
  }

  get requestTimeout(): Duration.DurationInput {
    return this.server.options.requestTimeout ?? Duration.seconds(60)
  }

  cacheOf(method: string) {
    const cache = this.server.options.cache
    const own = cache?.methods?.[method as CacheableMethod]
    return {
      ttlMs: own?.ttlMs ?? cache?.ttlMs ?? 0,
      cacheScope: own?.scope ?? cache?.scope ?? "private"
    }
  }

  ownerOf(ctx: RequestContext.RequestContextService): string {
    return Revision.isStateless(ctx.revision) ? TaskStore.statelessOwner(ctx.auth) : this.owner
  }

  notify(method: string, rev: Revision.Revision, params: unknown, related?: JsonRpc.RequestId): Effect.Effect<void> {
    const encoded = Codec.encodeParams(method, rev, params)
    if (Either.isLeft(encoded)) {
      return Effect.logWarning(`effect-mcp: could not encode ${method} for ${rev}`, Codec.describe(encoded.left))
    }
    return this.engine.notify(
      method,
      encoded.right as Params,
      related === undefined ? undefined : { relatedRequestId: related }
    ).pipe(Effect.catchAll(() => Effect.void))
  }

  logging(): boolean {
    return this.serverCapabilities.logging !== undefined
  }

  /** Waits, up to the request timeout, for `notifications/initialized`. */
  awaitInitialized(): Effect.Effect<void, McpError.McpError> {
    if (this.initialized) return Effect.void
    const deferred = (this.whenInitialized ??= Deferred.unsafeMake<void>(FiberId.none))
    return Deferred.await(deferred).pipe(
      Effect.timeoutFail({
        duration: this.requestTimeout,
        onTimeout: () => new McpError.RequestTimeout({ message: "The client never sent notifications/initialized" })
      })
    )
  }

  clientRequest(
    method: string,
    rev: Revision.Revision,
    params: unknown,
    related: JsonRpc.RequestId,
    required: Record<string, unknown>,
    satisfied: boolean
  ): Effect.Effect<unknown, McpError.McpError> {
    const session = this
    return Effect.gen(function*() {
      if (!satisfied || Method.shape(method, rev) === undefined) {
        return yield* new McpError.MissingRequiredClientCapability({
          message: `${method} needs a client capability the client did not declare (or revision ${rev} lacks it)`,
          requiredCapabilities: required
        })
      }
      yield* session.awaitInitialized()
      const encoded = Codec.encodeParams(method, rev, params)
      if (Either.isLeft(encoded)) {
        return yield* invalidParams(`Invalid ${method} params for ${rev}: ${Codec.describe(encoded.left)}`)
      }
      const result = yield* session.engine.request(method, encoded.right as Params, {
        relatedRequestId: related,
        timeout: session.requestTimeout
      }).pipe(
        Effect.catchTags({
          ConnectionClosed: (e) =>
            Effect.fail(new McpError.InternalError({ message: `Connection closed: ${e.reason}` })),
          TransportError: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
          // A server's transport fails no request with these (they are an HTTP client's), but the engine's type has them.
          Unauthorized: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
          Forbidden: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
          SessionExpired: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.message}` }))
        })
      )
      const decoded = Codec.decodeResult(method, rev, result)
      if (Either.isLeft(decoded)) {
        return yield* new McpError.InternalError({
          message: `The client's ${method} result is invalid: ${Codec.describe(decoded.left)}`
        })
      }
      return decoded.right
    })
  }

  makeContext(
    request: JsonRpc.Request,
    frame: Transport.Frame,
    rev: Revision.Revision,
    params: Params,
    peer: Peer
  ): RequestContextImpl {
    return new RequestContextImpl(
      frame.requestId ?? request.id,
      request.id,
      request.method,
      rev,
      record(params?._meta),
      frame.auth,
      this,
      peer
    )
  }

  listed<A>(items: ReadonlyArray<A>, params: Params, key: string) {
    return Effect.map(
      Pagination.page(
        items,
        typeof params?.cursor === "string" ? params.cursor : undefined,
        this.server.options.pageSize ?? 100
      ),
      (p) => (p.nextCursor === undefined ? { [key]: p.items } : { [key]: p.items, nextCursor: p.nextCursor })
    )
  }

  get debounce(): Duration.DurationInput {
    return this.server.options.listChangedDebounce ?? Duration.millis(10)
  }

  findTask(params: Params, ctx: RequestContext.RequestContextService) {
    return this.server.tasks.find(this.ownerOf(ctx), String(params?.taskId))
  }

  /** Starts a tool call as a task in the server's scope; the call answers at once with the task. */
  startTask(
    run: Effect.Effect<Mcp.CallToolResult, McpError.McpError>,
    ctx: RequestContext.RequestContextService,
    ttl: number | undefined
  ) {
    const rev = ctx.revision
    return this.server.tasks.start(run, {
      owner: this.ownerOf(ctx),
      ttl,
      onStatus: (task) => Revision.isStateless(rev) ? Effect.void : this.notify("notifications/tasks/status", rev, task)
    })
  }

  // ---------- dispatch ----------

  encodeResult(
    method: string,
    rev: Revision.Revision,
    result: unknown
  ): Effect.Effect<Record<string, unknown>, McpError.McpError> {
    // A 2026 task result (`Result & Task`) belongs to an extension no revision schema describes: sent as built.
    if (method === "tools/call" && record(result).resultType === "task") return Effect.succeed(record(result))
    const created = method === "tools/call" && typeof record(result).task === "object"
    const encoded = created ? Codec.encode(rev, "CreateTaskResult", result) : Codec.encodeResult(method, rev, result)
    if (Either.isRight(encoded)) return Effect.succeed(encoded.right as Record<string, unknown>)
    const logged = Effect.logError(
      `effect-mcp: the result of ${method} cannot be encoded for ${rev}`,
      Codec.describe(encoded.left)
    )
    // A tool result the revision cannot carry (audio content on 2024-11-05, say) becomes a tool error the client
    // and its model can read; any other unencodable result is the server's bug.
    const unexpressible = Codec.encodeResult(method, rev, {
      content: [{
        type: "text",
        text:
          `The tool's result cannot be expressed in protocol revision ${rev} (it uses content or fields a later revision added)`
      }],
      isError: true
    })
    return method === "tools/call" && !created && Either.isRight(unexpressible)
      ? Effect.as(logged, unexpressible.right as Record<string, unknown>)
      : logged.pipe(Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" }))))
  }

  initialize(request: JsonRpc.Request): Effect.Effect<Record<string, unknown>, McpError.McpError> {
    const session = this
    return Effect.gen(function*() {
      if (session.revision !== undefined) return yield* new McpError.InvalidRequest({ message: "Already initialized" })
      const decoded = Codec.decode("domain", "InitializeRequestParams", request.params)
      if (Either.isLeft(decoded)) {
        return yield* invalidParams(`Invalid params for initialize: ${Codec.describe(decoded.left)}`)
      }
      const params = decoded.right as Mcp.InitializeRequestParams
      const requested = params.protocolVersion
      const rev = Revision.isRevision(requested) && !Revision.isStateless(requested)
        ? requested
        : Revision.latestHandshake
      const strict = Codec.decodeParams("initialize", rev, request.params)
      if (Either.isLeft(strict)) {
        return yield* invalidParams(`Invalid params for initialize: ${Codec.describe(strict.left)}`)
      }
      session.revision = rev
      session.clientInfo = params.clientInfo
      session.clientCapabilities = params.capabilities
      session.serverCapabilities = session.server.capabilities()
      const instructions = session.server.options.instructions
      const result: Mcp.InitializeResult = {
        protocolVersion: rev,
        capabilities: session.serverCapabilities,
        serverInfo: session.server.info,
        ...(instructions === undefined ? {} : { instructions })
      }
      const out = yield* session.encodeResult("initialize", rev, result)
      if (!session.ready) yield* session.startPushes()
      session.ready = true
      return out
    })
  }

  /** The result as 2026-07-28 spells it: `resultType`, the server's identity, cache hints. */
  decorate(method: string, result: unknown): Record<string, unknown> {
    const r = record(result)
    return {
      ...(cacheable.has(method) ? this.cacheOf(method) : {}),
      ...r,
      resultType: typeof r.resultType === "string" ? r.resultType : "complete",
      _meta: { ...record(r._meta), [metaKeys.serverInfo]: this.server.info }
    }
  }

  statelessDispatch(
    request: JsonRpc.Request,
    frame: Transport.Frame,
    requested: unknown
  ): Effect.Effect<Record<string, unknown>, McpError.McpError> {
    const method = request.method
    if (!Revision.isRevision(requested) || !Revision.isStateless(requested)) {
      return Effect.fail(
        new McpError.UnsupportedProtocolVersion({
          message: `Unsupported protocol version: ${McpError.quote(requested)}`,
          supported: [...Revision.all],
          requested: McpError.quote(requested)
        })
      )
    }
    const rev = requested
    const server = this.server
    const extension = extensionHandlers[method]
    if (extension !== undefined) {
      if (record(record(server.capabilities()).extensions)[tasksExtension] === undefined) {
        return Effect.fail(methodNotFound(method))
      }
      if (typeof record(request.params).taskId !== "string") {
        return Effect.fail(invalidParams(`Invalid params for ${method}: taskId must be a string`))
      }
      const params = request.params as Params
      const ctx = this.makeContext(request, frame, rev, params, noPeer)
      return Effect.map(extension(this, params, ctx), (result) => this.decorate(method, result))
    }
    const facts = Method.info(method)
    if (
      facts === undefined || facts.kind !== "request" || facts.from === "server" || !facts.revisions.includes(rev)
    ) {
      return Effect.fail(methodNotFound(method))
    }
    const cap = Method.requirement(method, rev)
    if (cap !== undefined && cap.of === "server" && !Method.hasCapability(server.capabilities(), cap.path)) {
      return Effect.fail(methodNotFound(method))
    }
    const handler = methodHandlers[method]
    if (handler === undefined) return Effect.fail(methodNotFound(method))
    const decoded = Codec.decodeParams(method, rev, request.params)
    if (Either.isLeft(decoded)) {
      return Effect.fail(invalidParams(`Invalid params for ${method}: ${Codec.describe(decoded.left)}`))
    }
    const params = decoded.right as Params
    const meta = record(params?._meta)
    const target = String(params?.name ?? params?.uri ?? "")
    /** Runs the handler, given the answers gathered so far: earlier rounds' signed state plus this round's responses. */
    const withAnswers = (answers: Readonly<Record<string, unknown>>) => {
      const peer = new StatelessPeer(meta, answers, rev)
      const ctx = this.makeContext(request, frame, rev, params, peer)
      return handler(this, params, ctx).pipe(
        Effect.catchAllCause((cause) => {
          const pending = Chunk.findFirst(Cause.defects(cause), (d): d is InputRequired => d instanceof InputRequired)
          if (pending._tag === "None") return Effect.failCause(cause)
          return Effect.map(
            server.requestState.sign({ method, target, answers }),
            (requestState): unknown => ({
              resultType: "input_required",
              inputRequests: { [pending.value.key]: pending.value.request },
              requestState
            })
          )
        }),
        Effect.flatMap((result) => this.encodeResult(method, rev, this.decorate(method, result)))
      )
    }
    const responses = params?.inputResponses === undefined ? noAnswers : record(params.inputResponses)
    if (typeof params?.requestState !== "string") return withAnswers(responses)
    return Effect.flatMap(
      server.requestState.verify(params.requestState),
      (state) =>
        state === undefined || state.method !== method || state.target !== target
          ? Effect.fail(invalidParams("Invalid requestState: it was not issued by this server for this request"))
          : withAnswers({ ...state.answers, ...responses })
    )
  }

  // ---------- the engine's handlers ----------

  onRequest(
    request: JsonRpc.Request,
    frame: Transport.Frame
  ): Effect.Effect<Record<string, unknown>, McpError.McpError> {
    const method = request.method
    const requested = record(record(request.params)._meta)[metaKeys.protocolVersion] ?? frame.revision
    if (requested !== undefined && method !== "initialize") {
      return this.statelessDispatch(request, frame, requested)
    }
    if (method === "initialize") {
      return this.initialize(request)
    }
    const rev = this.revision
    if (rev === undefined) {
      return method === "ping"
        ? Effect.succeed({})
        : Effect.fail(new McpError.InvalidRequest({ message: `Not initialized: send initialize before ${method}` }))
    }
    const facts = Method.info(method)
    if (
      facts === undefined || facts.kind !== "request" || facts.from === "server" || !facts.revisions.includes(rev)
    ) {
      return Effect.fail(methodNotFound(method))
    }
    const cap = Method.requirement(method, rev)
    if (cap !== undefined && cap.of === "server" && !Method.hasCapability(this.serverCapabilities, cap.path)) {
      return Effect.fail(methodNotFound(method))
    }
    const handler = methodHandlers[method]
    if (handler === undefined) {
      return Effect.fail(methodNotFound(method))
    }
    const decoded = Codec.decodeParams(method, rev, request.params)
    if (Either.isLeft(decoded)) {
      return Effect.fail(invalidParams(`Invalid params for ${method}: ${Codec.describe(decoded.left)}`))
    }
    const params = decoded.right as Params
    const ctx = this.makeContext(request, frame, rev, params, this.peer)
    return Effect.flatMap(handler(this, params, ctx), (result) => this.encodeResult(method, rev, result))
  }

  toWire(e: McpError.McpError, request: JsonRpc.Request, frame: Transport.Frame): JsonRpc.ErrorObject {
    const requested = record(record(request.params)._meta)[metaKeys.protocolVersion] ?? frame.revision
    const rev = Revision.isRevision(requested) && Revision.isStateless(requested)
      ? requested
      : this.revision ?? Revision.latestHandshake
    return McpError.toWire(e, rev)
  }

  onNotification(notification: JsonRpc.Notification): Effect.Effect<void> {
    switch (notification.method) {
      case "notifications/initialized":
        return Effect.suspend(() => {
          this.initialized = true
          const waiting = this.whenInitialized
          return waiting === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(waiting, undefined))
        })
      default:
        return Effect.logDebug(`effect-mcp: ignored notification ${notification.method}`)
    }
  }

  // ---------- the server's counts ----------

  inFlight(): number {
    return this.engine.inFlight()
  }

  pending(): number {
    return this.engine.pendingCount()
  }

  isClosed(): boolean {
    return this.engine.isClosed()
  }

  acceptsBatch(): boolean {
    return this.revision === "2025-03-26"
  }

  // ---------- server-pushed notifications ----------

  /**
   * Started by `initialize`: a stateless connection (one 2026 request) never pays for them. The server calls the
   * session (its watcher); a notification's fiber exists only while one is due, so an idle session holds no fiber
   * and no subscription for them.
   */
  startPushes(): Effect.Effect<void> {
    return this.server.watch(this).pipe(Scope.extend(this.scope))
  }

  /** Changes within the debounce of the first one go out as one notification per list. */
  listChanged(kind: ListKind): void {
    ;(this.changedKinds ??= new Set()).add(kind)
    if (this.flushDue) return
    this.flushDue = true
    this.engine.background(Effect.zipRight(Effect.sleep(this.debounce), this.flushChanges()))
  }

  resourceUpdated(uri: string): void {
    const rev = this.revision
    if (rev !== undefined && this.subscriptions?.has(uri) === true) {
      this.engine.background(this.notify("notifications/resources/updated", rev, { uri }))
    }
  }

  flushChanges(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.flushDue = false
      const kinds = [...(this.changedKinds ?? [])]
      this.changedKinds?.clear()
      const rev = this.revision
      if (!this.ready || rev === undefined) return Effect.void
      return Effect.forEach(kinds, (kind) => {
        const declared = record(record(this.serverCapabilities)[kind])
        return declared.listChanged === true ? this.notify(listChangedMethod[kind], rev, {}) : Effect.void
      }, { discard: true })
    })
  }
}

const listen: SessionHandler = (session, params, ctx) =>
  Effect.scoped(Effect.gen(function*() {
    const server = session.server
    const wanted = record(params?.notifications)
    const caps = record(server.capabilities())
    const can = (kind: string, flag: string) => record(caps[kind])[flag] === true
    const ack: Record<string, unknown> = {}
    if (wanted.toolsListChanged === true && can("tools", "listChanged")) ack.toolsListChanged = true
    if (wanted.promptsListChanged === true && can("prompts", "listChanged")) ack.promptsListChanged = true
    if (wanted.resourcesListChanged === true && can("resources", "listChanged")) ack.resourcesListChanged = true
    const uris = Array.isArray(wanted.resourceSubscriptions) && can("resources", "subscribe")
      ? wanted.resourceSubscriptions.filter((u): u is string => typeof u === "string")
      : []
    if (Array.isArray(wanted.resourceSubscriptions) && can("resources", "subscribe")) {
      ack.resourceSubscriptions = uris
    }
    // The subscription is named by the client's id; its notifications go out related to the request's own.
    const id = ctx.relatedId
    const meta = { [metaKeys.subscriptionId]: ctx.requestId }
    const rev = ctx.revision
    const changes = yield* PubSub.subscribe(server.changes)
    const updates = yield* PubSub.subscribe(server.resourceUpdates)
    yield* session.notify("notifications/subscriptions/acknowledged", rev, { _meta: meta, notifications: ack }, id)
    const lists = Stream.fromQueue(changes).pipe(
      Stream.filter((kind) => ack[`${kind}ListChanged`] === true),
      Stream.groupedWithin(1024, session.debounce),
      Stream.mapEffect((kinds) =>
        Effect.forEach(new Set(kinds), (kind) => session.notify(listChangedMethod[kind], rev, { _meta: meta }, id), {
          discard: true
        })
      )
    )
    const updated = Stream.fromQueue(updates).pipe(
      Stream.filter((uri) => uris.includes(uri)),
      Stream.mapEffect((uri) => session.notify("notifications/resources/updated", rev, { uri, _meta: meta }, id))
    )
    yield* Stream.runDrain(Stream.merge(lists, updated))
    return { _meta: meta }
  }))

// ---------- tasks (2025-11-25 core methods, 2026 extension) ----------

const cancelTask: SessionHandler = (session, params, ctx) =>
  Effect.flatMap(
    session.findTask(params, ctx),
    (entry) => session.server.tasks.cancel(entry, "Cancelled by the client")
  )

const taskHandlers: Record<string, SessionHandler> = {
  "tasks/get": (session, params, ctx) => Effect.map(session.findTask(params, ctx), (entry) => entry.task),
  "tasks/result": (session, params, ctx) => Effect.flatMap(session.findTask(params, ctx), outcomeOf),
  "tasks/cancel": cancelTask,
  "tasks/list": (session, params, ctx) =>
    session.listed(session.server.tasks.list(session.ownerOf(ctx)), params, "tasks")
}

/** The 2026 `io.modelcontextprotocol/tasks` extension: no schema in the method table, answered by hand. */
const extensionHandlers: Record<string, SessionHandler> = {
  "tasks/get": (session, params, ctx) =>
    Effect.gen(function*() {
      const entry = yield* session.findTask(params, ctx)
      if (!TaskStore.terminal(entry.task.status) || entry.task.status === "cancelled") return entry.task
      const outcome = yield* Effect.either(outcomeOf(entry))
      return Either.isRight(outcome)
        ? { ...entry.task, result: outcome.right }
        : { ...entry.task, error: McpError.toWire(outcome.left, ctx.revision) }
    }),
  "tasks/update": (session, params, ctx) =>
    Effect.flatMap(
      session.findTask(params, ctx),
      (entry) => Effect.fail(invalidParams(`Task ${entry.task.taskId} is ${entry.task.status}, not waiting for input`))
    ),
  "tasks/cancel": cancelTask
}

const callTool: SessionHandler = (session, params, ctx) => {
  const name = String(params?.name)
  const t = session.server.tool(name)
  if (t === undefined) {
    return Effect.fail(invalidParams(`Unknown tool: ${McpError.quote(name)}`))
  }
  const support = t.descriptor.execution?.taskSupport ?? "forbidden"
  const call = t.call(params?.arguments as Record<string, unknown> | undefined, ctx)
  const rev = ctx.revision
  if (Revision.isStateless(rev)) {
    // 2026: the server makes a task when the request declares the extension and the tool supports tasks.
    const declared = record(record(ctx.clientCapabilities).extensions)[tasksExtension] !== undefined
    if (declared && support !== "forbidden") {
      return Effect.map(session.startTask(call, ctx, undefined), (task) => ({ resultType: "task", ...task }))
    }
    return support === "required"
      ? Effect.fail(methodNotFound(`tools/call of ${name} without the ${tasksExtension} extension`))
      : call
  }
  const asTask = params?.task !== undefined && Method.info("tasks/get")?.revisions.includes(rev) === true
  if (asTask && support === "forbidden") {
    return Effect.fail(methodNotFound(`tools/call of ${name} as a task (the tool does not support tasks)`))
  }
  if (!asTask && support === "required") {
    return Effect.fail(methodNotFound(`tools/call of ${name} without a task (the tool requires one)`))
  }
  if (!asTask) {
    return call
  }
  const ttl = record(params?.task).ttl
  return Effect.map(session.startTask(call, ctx, typeof ttl === "number" ? ttl : undefined), (task) => ({ task }))
}

/** The handler of each client→server request method (one table for every session). */
const methodHandlers: Record<string, SessionHandler> = {
  "ping": () => Effect.succeed({}),
  "server/discover": (session) =>
    Effect.sync(() => {
      const instructions = session.server.options.instructions
      return {
        supportedVersions: [...Revision.all],
        capabilities: session.server.capabilities(),
        ...(instructions === undefined ? {} : { instructions })
      }
    }),
  "subscriptions/listen": listen,
  "logging/setLevel": (session, params) =>
    Effect.sync(() => {
      session.logLevel = params?.level as RequestContext.LoggingLevel
      return {}
    }),
  "tools/list": (session, params) => session.listed(session.server.tools().map((t) => t.descriptor), params, "tools"),
  "tools/call": callTool,
  ...taskHandlers,
  "resources/list": (session, params, ctx) =>
    Effect.gen(function*() {
      const server = session.server
      const listedByTemplates = yield* Effect.forEach(
        server.templates().filter((t) => t.list !== undefined),
        (t) => t.list!(ctx)
      )
      const all = [...server.resources().map((r) => r.descriptor), ...listedByTemplates.flat()]
      return yield* session.listed(all, params, "resources")
    }),
  "resources/templates/list": (session, params) =>
    session.listed(session.server.templates().map((t) => t.descriptor), params, "resourceTemplates"),
  "resources/read": (session, params, ctx) => {
    const uri = String(params?.uri)
    const exact = session.server.resource(uri)
    if (exact !== undefined) return exact.read(ctx)
    for (const t of session.server.templates()) {
      const read = t.read(uri, ctx)
      if (read !== undefined) return read
    }
    return Effect.fail(new McpError.ResourceNotFound({ message: `Resource not found: ${McpError.quote(uri)}`, uri }))
  },
  "resources/subscribe": (session, params) =>
    Effect.sync(() => {
      ;(session.subscriptions ??= new Set()).add(String(params?.uri))
      return {}
    }),
  "resources/unsubscribe": (session, params) =>
    Effect.sync(() => {
      session.subscriptions?.delete(String(params?.uri))
      return {}
    }),
  "prompts/list": (session, params) =>
    session.listed(session.server.prompts().map((p) => p.descriptor), params, "prompts"),
  "prompts/get": (session, params, ctx) => {
    const name = String(params?.name)
    const p = session.server.prompt(name)
    return p === undefined
      ? Effect.fail(invalidParams(`Unknown prompt: ${McpError.quote(name)}`))
      : p.get(params?.arguments as Record<string, string> | undefined, ctx)
  },
  "completion/complete": (session, params, ctx) => {
    const ref = record(params?.ref)
    const argument = record(params?.argument)
    const args = record(record(params?.context).arguments) as Record<string, string>
    const name = String(argument.name)
    const value = String(argument.value ?? "")
    if (ref.type === "ref/prompt") {
      const p = session.server.prompt(String(ref.name))
      if (p === undefined) return Effect.fail(invalidParams(`Unknown prompt: ${McpError.quote(ref.name)}`))
      return Effect.map(p.complete(name, value, args, ctx), completion)
    }
    const t = session.server.templates().find((t) => t.descriptor.uriTemplate === ref.uri)
    if (t === undefined) return Effect.fail(invalidParams(`Unknown resource template: ${McpError.quote(ref.uri)}`))
    return Effect.map(t.complete(name, value, args, ctx), completion)
  }
}

/** Starts a session over the current transport. */
export const make = (
  server: McpServerService
): Effect.Effect<ServerSession, never, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const session = new Session(server)
    session.scope = yield* Effect.scope
    // Tasks live in the server's store; a handshake session owns its tasks, which end with it.
    yield* Scoped.onClose(Effect.suspend(() => server.tasks.release(session.owner)))
    const { concurrency, maxBatchSize, maxDepth } = server.options
    session.engine = yield* Engine.make(session, {
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
      ...(maxBatchSize === undefined ? {} : { maxBatchSize })
    })
    const engine = session.engine
    yield* server.track(session)
    return { engine, closed: engine.closed }
  })
