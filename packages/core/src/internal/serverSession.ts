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
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CacheableMethod, ListKind, McpServerService } from "../McpServer.js"
import * as RequestContext from "../RequestContext.js"
import type * as Transport from "../Transport.js"
import * as Engine from "./engine.js"
import * as Pagination from "./pagination.js"
import { type Owner, type Peer, RequestContextImpl } from "./requestContextImpl.js"
import * as Scoped from "./scoped.js"
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
type Handler = (params: Params, ctx: RequestContextImpl) => Effect.Effect<unknown, McpError.McpError>

const invalidParams = (message: string) => new McpError.InvalidParams({ message })
const methodNotFound = (method: string) =>
  new McpError.MethodNotFound({ message: `Method not found: ${method}`, method })

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

/** Starts a session over the current transport. */
export const make = (
  server: McpServerService
): Effect.Effect<ServerSession, never, Transport.Transport | Scope.Scope> =>
  Effect.gen(function*() {
    const options = server.options
    const pageSize = options.pageSize ?? 100
    const requestTimeout = options.requestTimeout ?? Duration.seconds(60)
    const initialized = yield* Deferred.make<void>()
    let revision: Revision.Revision | undefined
    let clientInfo: Mcp.Implementation | undefined
    let clientCapabilities: Mcp.ClientCapabilities = {}
    let serverCapabilities: Mcp.ServerCapabilities = server.capabilities()
    let logLevel: RequestContext.LoggingLevel | undefined
    let ready = false
    const subscriptions = new Set<string>()
    const signer = server.requestState
    const cacheOf = (method: string) => {
      const own = options.cache?.methods?.[method as CacheableMethod]
      return {
        ttlMs: own?.ttlMs ?? options.cache?.ttlMs ?? 0,
        cacheScope: own?.scope ?? options.cache?.scope ?? "private"
      }
    }
    // Tasks live in the server's store; a handshake session owns its tasks, which end with it.
    const sessionOwner = `session:${globalThis.crypto.randomUUID()}`
    yield* Scoped.onClose(server.tasks.release(sessionOwner))
    const ownerOf = (ctx: RequestContext.RequestContextService) =>
      Revision.isStateless(ctx.revision) ? TaskStore.statelessOwner(ctx.auth) : sessionOwner

    // The engine is created below; the context needs it lazily.
    let engine: Engine.Engine

    const notify = (method: string, rev: Revision.Revision, params: unknown, related?: JsonRpc.RequestId) => {
      const encoded = Codec.encodeParams(method, rev, params)
      if (Either.isLeft(encoded)) {
        return Effect.logWarning(`effect-mcp: could not encode ${method} for ${rev}`, Codec.describe(encoded.left))
      }
      return engine.notify(
        method,
        encoded.right as Params,
        related === undefined ? undefined : { relatedRequestId: related }
      ).pipe(Effect.catchAll(() => Effect.void))
    }

    const clientRequest = (
      method: string,
      rev: Revision.Revision,
      params: unknown,
      related: JsonRpc.RequestId,
      required: Record<string, unknown>,
      satisfied: boolean
    ): Effect.Effect<unknown, McpError.McpError> =>
      Effect.gen(function*() {
        if (!satisfied || Method.shape(method, rev) === undefined) {
          return yield* new McpError.MissingRequiredClientCapability({
            message: `${method} needs a client capability the client did not declare (or revision ${rev} lacks it)`,
            requiredCapabilities: required
          })
        }
        yield* Deferred.await(initialized).pipe(
          Effect.timeoutFail({
            duration: requestTimeout,
            onTimeout: () => new McpError.RequestTimeout({ message: "The client never sent notifications/initialized" })
          })
        )
        const encoded = Codec.encodeParams(method, rev, params)
        if (Either.isLeft(encoded)) {
          return yield* invalidParams(`Invalid ${method} params for ${rev}: ${Codec.describe(encoded.left)}`)
        }
        const result = yield* engine.request(method, encoded.right as Params, {
          relatedRequestId: related,
          timeout: requestTimeout
        }).pipe(
          Effect.catchTags({
            ConnectionClosed: (e) =>
              Effect.fail(new McpError.InternalError({ message: `Connection closed: ${e.reason}` })),
            TransportError: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` }))
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

    /** The client of a handshake session, as every request's context sees it. */
    const handshakePeer: Peer = {
      get capabilities() {
        return clientCapabilities
      },
      get clientInfo() {
        return clientInfo
      },
      logLevel: () => logLevel,
      ask: (method, params, required, satisfied, rev, id) => clientRequest(method, rev, params, id, required, satisfied)
    }

    const contextOwner: Owner = {
      notify,
      logging: () => serverCapabilities.logging !== undefined
    }
    const makeContext = (
      request: JsonRpc.Request,
      frame: Transport.Frame,
      rev: Revision.Revision,
      params: Params,
      peer: Peer
    ): RequestContextImpl =>
      new RequestContextImpl(
        frame.requestId ?? request.id,
        request.id,
        request.method,
        rev,
        record(params?._meta),
        frame.auth,
        contextOwner,
        peer
      )

    // ---------- method handlers ----------

    const listChangedMethod = {
      tools: "notifications/tools/list_changed",
      resources: "notifications/resources/list_changed",
      prompts: "notifications/prompts/list_changed"
    } as const
    const debounce = options.listChangedDebounce ?? Duration.millis(10)

    const listed = <A>(items: ReadonlyArray<A>, params: Params, key: string) =>
      Effect.map(
        Pagination.page(items, typeof params?.cursor === "string" ? params.cursor : undefined, pageSize),
        (p) => (p.nextCursor === undefined ? { [key]: p.items } : { [key]: p.items, nextCursor: p.nextCursor })
      )

    const completion = (values: ReadonlyArray<string>) => ({
      completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 }
    })

    const listen: Handler = (params, ctx) =>
      Effect.scoped(Effect.gen(function*() {
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
        yield* notify("notifications/subscriptions/acknowledged", rev, { _meta: meta, notifications: ack }, id)
        const lists = Stream.fromQueue(changes).pipe(
          Stream.filter((kind) => ack[`${kind}ListChanged`] === true),
          Stream.groupedWithin(1024, debounce),
          Stream.mapEffect((kinds) =>
            Effect.forEach(new Set(kinds), (kind) => notify(listChangedMethod[kind], rev, { _meta: meta }, id), {
              discard: true
            })
          )
        )
        const updated = Stream.fromQueue(updates).pipe(
          Stream.filter((uri) => uris.includes(uri)),
          Stream.mapEffect((uri) => notify("notifications/resources/updated", rev, { uri, _meta: meta }, id))
        )
        yield* Stream.runDrain(Stream.merge(lists, updated))
        return { _meta: meta }
      }))

    // ---------- tasks (2025-11-25 core methods, 2026 extension) ----------

    const findTask = (params: Params, ctx: RequestContext.RequestContextService) =>
      server.tasks.find(ownerOf(ctx), String(params?.taskId))

    /** Starts a tool call as a task in the server's scope; the call answers at once with the task. */
    const startTask = (
      run: Effect.Effect<Mcp.CallToolResult, McpError.McpError>,
      ctx: RequestContext.RequestContextService,
      ttl: number | undefined
    ) => {
      const rev = ctx.revision
      return server.tasks.start(run, {
        owner: ownerOf(ctx),
        ttl,
        onStatus: (task) => Revision.isStateless(rev) ? Effect.void : notify("notifications/tasks/status", rev, task)
      })
    }

    const cancelTask: Handler = (params, ctx) =>
      Effect.flatMap(findTask(params, ctx), (entry) => server.tasks.cancel(entry, "Cancelled by the client"))

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

    const taskHandlers: Record<string, Handler> = {
      "tasks/get": (params, ctx) => Effect.map(findTask(params, ctx), (entry) => entry.task),
      "tasks/result": (params, ctx) => Effect.flatMap(findTask(params, ctx), outcomeOf),
      "tasks/cancel": cancelTask,
      "tasks/list": (params, ctx) => listed(server.tasks.list(ownerOf(ctx)), params, "tasks")
    }

    /** The 2026 `io.modelcontextprotocol/tasks` extension: no schema in the method table, answered by hand. */
    const extensionHandlers: Record<string, Handler> = {
      "tasks/get": (params, ctx) =>
        Effect.gen(function*() {
          const entry = yield* findTask(params, ctx)
          if (!TaskStore.terminal(entry.task.status) || entry.task.status === "cancelled") return entry.task
          const outcome = yield* Effect.either(outcomeOf(entry))
          return Either.isRight(outcome)
            ? { ...entry.task, result: outcome.right }
            : { ...entry.task, error: McpError.toWire(outcome.left, ctx.revision) }
        }),
      "tasks/update": (params, ctx) =>
        Effect.flatMap(findTask(params, ctx), (entry) =>
          Effect.fail(invalidParams(`Task ${entry.task.taskId} is ${entry.task.status}, not waiting for input`))),
      "tasks/cancel": cancelTask
    }

    const callTool: Handler = (params, ctx) => {
      const name = String(params?.name)
      const t = server.tool(name)
      if (t === undefined) {
        return Effect.fail(invalidParams(`Unknown tool: ${name}`))
      }
      const support = t.descriptor.execution?.taskSupport ?? "forbidden"
      const call = t.call(params?.arguments as Record<string, unknown> | undefined, ctx)
      const rev = ctx.revision
      if (Revision.isStateless(rev)) {
        // 2026: the server makes a task when the request declares the extension and the tool supports tasks.
        const declared = record(record(ctx.clientCapabilities).extensions)[tasksExtension] !== undefined
        if (declared && support !== "forbidden") {
          return Effect.map(startTask(call, ctx, undefined), (task) => ({ resultType: "task", ...task }))
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
      return Effect.map(startTask(call, ctx, typeof ttl === "number" ? ttl : undefined), (task) => ({ task }))
    }

    const handlers: Record<string, Handler> = {
      "ping": () =>
        Effect.succeed({}),
      "server/discover": () =>
        Effect.succeed({
          supportedVersions: [...Revision.all],
          capabilities: server.capabilities(),
          ...(options.instructions === undefined ? {} : { instructions: options.instructions })
        }),
      "subscriptions/listen": listen,
      "logging/setLevel": (params) =>
        Effect.sync(() => {
          logLevel = params?.level as RequestContext.LoggingLevel
          return {}
        }),
      "tools/list": (params) =>
        listed(server.tools().map((t) => t.descriptor), params, "tools"),
      "tools/call": callTool,
      ...taskHandlers,
      "resources/list": (params, ctx) =>
        Effect.gen(function*() {
          const listedByTemplates = yield* Effect.forEach(
            server.templates().filter((t) => t.list !== undefined),
            (t) => t.list!(ctx)
          )
          const all = [...server.resources().map((r) => r.descriptor), ...listedByTemplates.flat()]
          return yield* listed(all, params, "resources")
        }),
      "resources/templates/list": (params) =>
        listed(server.templates().map((t) => t.descriptor), params, "resourceTemplates"),
      "resources/read": (params, ctx) => {
        const uri = String(params?.uri)
        const exact = server.resource(uri)
        if (exact !== undefined) return exact.read(ctx)
        for (const t of server.templates()) {
          const read = t.read(uri, ctx)
          if (read !== undefined) return read
        }
        return Effect.fail(new McpError.ResourceNotFound({ message: `Resource not found: ${uri}`, uri }))
      },
      "resources/subscribe": (params) =>
        Effect.sync(() => {
          subscriptions.add(String(params?.uri))
          return {}
        }),
      "resources/unsubscribe": (params) =>
        Effect.sync(() => {
          subscriptions.delete(String(params?.uri))
          return {}
        }),
      "prompts/list": (params) => listed(server.prompts().map((p) => p.descriptor), params, "prompts"),
      "prompts/get": (params, ctx) => {
        const name = String(params?.name)
        const p = server.prompt(name)
        return p === undefined
          ? Effect.fail(invalidParams(`Unknown prompt: ${name}`))
          : p.get(params?.arguments as Record<string, string> | undefined, ctx)
      },
      "completion/complete": (params, ctx) => {
        const ref = record(params?.ref)
        const argument = record(params?.argument)
        const args = record(record(params?.context).arguments) as Record<string, string>
        const name = String(argument.name)
        const value = String(argument.value ?? "")
        if (ref.type === "ref/prompt") {
          const p = server.prompt(String(ref.name))
          if (p === undefined) return Effect.fail(invalidParams(`Unknown prompt: ${String(ref.name)}`))
          return Effect.map(p.complete(name, value, args, ctx), completion)
        }
        const t = server.templates().find((t) => t.descriptor.uriTemplate === ref.uri)
        if (t === undefined) return Effect.fail(invalidParams(`Unknown resource template: ${String(ref.uri)}`))
        return Effect.map(t.complete(name, value, args, ctx), completion)
      }
    }

    // ---------- dispatch ----------

    const encodeResult = (method: string, rev: Revision.Revision, result: unknown) => {
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

    const initialize = (request: JsonRpc.Request): Effect.Effect<Record<string, unknown>, McpError.McpError> =>
      Effect.gen(function*() {
        if (revision !== undefined) return yield* new McpError.InvalidRequest({ message: "Already initialized" })
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
        revision = rev
        clientInfo = params.clientInfo
        clientCapabilities = params.capabilities
        serverCapabilities = server.capabilities()
        const result: Mcp.InitializeResult = {
          protocolVersion: rev,
          capabilities: serverCapabilities,
          serverInfo: server.info,
          ...(options.instructions === undefined ? {} : { instructions: options.instructions })
        }
        const out = yield* encodeResult("initialize", rev, result)
        if (!ready) yield* startPushes
        ready = true
        return out
      })

    /** The result as 2026-07-28 spells it: `resultType`, the server's identity, cache hints. */
    const decorate = (method: string, result: unknown): Record<string, unknown> => {
      const r = record(result)
      return {
        ...(cacheable.has(method) ? cacheOf(method) : {}),
        ...r,
        resultType: typeof r.resultType === "string" ? r.resultType : "complete",
        _meta: { ...record(r._meta), [metaKeys.serverInfo]: server.info }
      }
    }

    const statelessDispatch = (
      request: JsonRpc.Request,
      frame: Transport.Frame,
      requested: unknown
    ): Effect.Effect<Record<string, unknown>, McpError.McpError> => {
      const method = request.method
      if (!Revision.isRevision(requested) || !Revision.isStateless(requested)) {
        return Effect.fail(
          new McpError.UnsupportedProtocolVersion({
            message: `Unsupported protocol version: ${String(requested)}`,
            supported: [...Revision.all],
            requested: String(requested)
          })
        )
      }
      const rev = requested
      const extension = extensionHandlers[method]
      if (extension !== undefined) {
        if (record(record(server.capabilities()).extensions)[tasksExtension] === undefined) {
          return Effect.fail(methodNotFound(method))
        }
        if (typeof record(request.params).taskId !== "string") {
          return Effect.fail(invalidParams(`Invalid params for ${method}: taskId must be a string`))
        }
        const params = request.params as Params
        const peer: Peer = {
          capabilities: {},
          clientInfo: undefined,
          logLevel: () => null,
          ask: (m) => Effect.fail(invalidParams(`${m} is not available here`))
        }
        const ctx = makeContext(request, frame, rev, params, peer)
        return Effect.map(extension(params, ctx), (result) => decorate(method, result))
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
      const handler = handlers[method]
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
        const ctx = makeContext(request, frame, rev, params, peer)
        return handler(params, ctx).pipe(
          Effect.catchAllCause((cause) => {
            const pending = Chunk.findFirst(Cause.defects(cause), (d): d is InputRequired => d instanceof InputRequired)
            if (pending._tag === "None") return Effect.failCause(cause)
            return Effect.map(
              signer.sign({ method, target, answers }),
              (requestState): unknown => ({
                resultType: "input_required",
                inputRequests: { [pending.value.key]: pending.value.request },
                requestState
              })
            )
          }),
          Effect.flatMap((result) => encodeResult(method, rev, decorate(method, result)))
        )
      }
      const responses = params?.inputResponses === undefined ? noAnswers : record(params.inputResponses)
      if (typeof params?.requestState !== "string") return withAnswers(responses)
      return Effect.flatMap(signer.verify(params.requestState), (state) =>
        state === undefined || state.method !== method || state.target !== target
          ? Effect.fail(invalidParams("Invalid requestState: it was not issued by this server for this request"))
          : withAnswers({ ...state.answers, ...responses }))
    }

    const dispatch = (
      request: JsonRpc.Request,
      frame: Transport.Frame
    ): Effect.Effect<Record<string, unknown>, McpError.McpError> => {
      const method = request.method
      const requested = record(record(request.params)._meta)[metaKeys.protocolVersion] ?? frame.revision
      if (requested !== undefined && method !== "initialize") {
        return statelessDispatch(request, frame, requested)
      }
      if (method === "initialize") {
        return initialize(request)
      }
      const rev = revision
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
      if (cap !== undefined && cap.of === "server" && !Method.hasCapability(serverCapabilities, cap.path)) {
        return Effect.fail(methodNotFound(method))
      }
      const handler = handlers[method]
      if (handler === undefined) {
        return Effect.fail(methodNotFound(method))
      }
      const decoded = Codec.decodeParams(method, rev, request.params)
      if (Either.isLeft(decoded)) {
        return Effect.fail(invalidParams(`Invalid params for ${method}: ${Codec.describe(decoded.left)}`))
      }
      const params = decoded.right as Params
      const ctx = makeContext(request, frame, rev, params, handshakePeer)
      return Effect.flatMap(handler(params, ctx), (result) =>
        encodeResult(method, rev, result))
    }

    const errorRevision = (request: JsonRpc.Request, frame: Transport.Frame): Revision.Revision => {
      const requested = record(record(request.params)._meta)[metaKeys.protocolVersion] ?? frame.revision
      return Revision.isRevision(requested) && Revision.isStateless(requested)
        ? requested
        : revision ?? Revision.latestHandshake
    }

    engine = yield* Engine.make({
      onRequest: dispatch,
      toWire: (e, request, frame) =>
        McpError.toWire(e, errorRevision(request, frame)),
      onNotification: (notification) => {
        switch (notification.method) {
          case "notifications/initialized":
            return Deferred.succeed(initialized, undefined)
          default:
            return Effect.logDebug(`effect-mcp: ignored notification ${notification.method}`)
        }
      },
      acceptsBatch: () =>
        revision === "2025-03-26"
    }, options.concurrency === undefined ? {} : { concurrency: options.concurrency })
    yield* server.track({ inFlight: engine.inFlight, pending: engine.pendingCount, isClosed: engine.isClosed })

    // ---------- server-pushed notifications ----------

    // Started by `initialize`: a stateless connection (one 2026 request) never pays for them.
    const sessionScope = yield* Effect.scope
    // The server calls the session's watcher; a notification's fiber exists only while one is due, so an idle
    // session holds no fiber and no subscription for them. Changes within `debounce` of the first one go out as
    // one notification per list.
    const changedKinds = new Set<ListKind>()
    let flushDue = false
    const flushChanges = Effect.suspend(() => {
      flushDue = false
      const kinds = [...changedKinds]
      changedKinds.clear()
      const rev = revision
      if (!ready || rev === undefined) return Effect.void
      return Effect.forEach(kinds, (kind) => {
        const declared = record(record(serverCapabilities)[kind])
        return declared.listChanged === true ? notify(listChangedMethod[kind], rev, {}) : Effect.void
      }, { discard: true })
    })
    const startPushes = server.watch({
      listChanged: (kind) => {
        changedKinds.add(kind)
        if (flushDue) return
        flushDue = true
        engine.background(Effect.zipRight(Effect.sleep(debounce), flushChanges))
      },
      resourceUpdated: (uri) => {
        const rev = revision
        if (rev !== undefined && subscriptions.has(uri)) {
          engine.background(notify("notifications/resources/updated", rev, { uri }))
        }
      }
    }).pipe(Scope.extend(sessionScope))

    return { engine, closed: engine.closed }
  })
