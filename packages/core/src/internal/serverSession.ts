/**
 * One connection's server session: the handshake, per-method dispatch driven by the method table,
 * params decoded and results encoded for the negotiated revision, the RequestContext of each
 * request, subscriptions, log level, and list_changed notifications.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import type { McpServerService } from "../McpServer.js"
import * as RequestContext from "../RequestContext.js"
import type * as Transport from "../Transport.js"
import * as Engine from "./engine.js"
import * as Pagination from "./pagination.js"

/** A running server session. */
export interface ServerSession {
  readonly engine: Engine.Engine
  readonly closed: Effect.Effect<void>
}

type Params = Record<string, unknown> | undefined
type Handler = (params: Params, ctx: RequestContext.RequestContextService) => Effect.Effect<unknown, McpError.McpError>

const invalidParams = (message: string) => new McpError.InvalidParams({ message })
const methodNotFound = (method: string) =>
  new McpError.MethodNotFound({ message: `Method not found: ${method}`, method })

const record = (u: unknown): Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : {}

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
            ConnectionClosed: (e) => Effect.fail(new McpError.InternalError({ message: `Connection closed: ${e.reason}` })),
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

    const makeContext = (
      request: JsonRpc.Request,
      frame: Transport.Frame,
      rev: Revision.Revision,
      params: Params,
      signal: () => AbortSignal
    ): RequestContext.RequestContextService => {
      const meta = record(params?._meta)
      const token = meta.progressToken
      const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined
      const id = request.id
      const caps = clientCapabilities
      const elicitation = record(caps.elicitation)
      return {
        requestId: id,
        method: request.method,
        revision: rev,
        clientInfo,
        clientCapabilities: caps,
        meta,
        progressToken,
        auth: frame.auth,
        get signal() {
          return signal()
        },
        progress: (progress, total, message) =>
          progressToken === undefined
            ? Effect.void
            : notify("notifications/progress", rev, {
              progressToken,
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message })
            }, id),
        log: (level, data, logger) =>
          serverCapabilities.logging === undefined || !RequestContext.passes(level, logLevel)
            ? Effect.void
            : notify("notifications/message", rev, { level, data, ...(logger === undefined ? {} : { logger }) }, id),
        elicit: (p) => {
          const url = (p as { mode?: string }).mode === "url"
          const has = caps.elicitation !== undefined &&
            (url ? elicitation.url !== undefined : elicitation.url === undefined || elicitation.form !== undefined)
          return clientRequest(
            "elicitation/create",
            rev,
            p,
            id,
            { elicitation: url ? { url: {} } : { form: {} } },
            has
          ) as Effect.Effect<Mcp.ElicitResult, McpError.McpError>
        },
        sample: (p) => {
          const needsTools = p.tools !== undefined && p.tools.length > 0
          const sampling = record(caps.sampling)
          const has = caps.sampling !== undefined && (!needsTools || sampling.tools !== undefined)
          return clientRequest(
            "sampling/createMessage",
            rev,
            p,
            id,
            { sampling: needsTools ? { tools: {} } : {} },
            has
          ) as Effect.Effect<Mcp.CreateMessageResult, McpError.McpError>
        },
        listRoots: () =>
          clientRequest("roots/list", rev, undefined, id, { roots: {} }, caps.roots !== undefined) as Effect.Effect<
            Mcp.ListRootsResult,
            McpError.McpError
          >
      }
    }

    // ---------- method handlers ----------

    const listed = <A>(items: ReadonlyArray<A>, params: Params, key: string) =>
      Effect.map(
        Pagination.page(items, typeof params?.cursor === "string" ? params.cursor : undefined, pageSize),
        (p) => (p.nextCursor === undefined ? { [key]: p.items } : { [key]: p.items, nextCursor: p.nextCursor })
      )

    const completion = (values: ReadonlyArray<string>) => ({
      completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 }
    })

    const handlers: Record<string, Handler> = {
      "ping": () => Effect.succeed({}),
      "logging/setLevel": (params) =>
        Effect.sync(() => {
          logLevel = params?.level as RequestContext.LoggingLevel
          return {}
        }),
      "tools/list": (params) => listed(server.tools().map((t) => t.descriptor), params, "tools"),
      "tools/call": (params, ctx) => {
        const name = String(params?.name)
        const t = server.tool(name)
        return t === undefined
          ? Effect.fail(invalidParams(`Unknown tool: ${name}`))
          : t.call(params?.arguments as Record<string, unknown> | undefined, ctx)
      },
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
      const encoded = Codec.encodeResult(method, rev, result)
      return Either.isRight(encoded)
        ? Effect.succeed(encoded.right as Record<string, unknown>)
        : Effect.logError(`effect-mcp: the result of ${method} cannot be encoded for ${rev}`, Codec.describe(encoded.left))
          .pipe(Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" }))))
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
        ready = true
        return out
      })

    const dispatch = (
      request: JsonRpc.Request,
      frame: Transport.Frame
    ): Effect.Effect<Record<string, unknown>, McpError.McpError> => {
      const method = request.method
      if (method === "initialize") return initialize(request)
      const rev = revision
      if (rev === undefined) {
        return method === "ping"
          ? Effect.succeed({})
          : Effect.fail(new McpError.InvalidRequest({ message: `Not initialized: send initialize before ${method}` }))
      }
      const facts = Method.info(method)
      if (facts === undefined || facts.kind !== "request" || facts.from === "server" || !facts.revisions.includes(rev)) {
        return Effect.fail(methodNotFound(method))
      }
      const cap = facts.capability
      if (cap !== undefined && cap.of === "server" && !Method.hasCapability(serverCapabilities, cap.path)) {
        return Effect.fail(methodNotFound(method))
      }
      const handler = handlers[method]
      if (handler === undefined) return Effect.fail(methodNotFound(method))
      const decoded = Codec.decodeParams(method, rev, request.params)
      if (Either.isLeft(decoded)) {
        return Effect.fail(invalidParams(`Invalid params for ${method}: ${Codec.describe(decoded.left)}`))
      }
      const params = decoded.right as Params
      let controller: AbortController | undefined
      const signal = () => (controller ??= new AbortController()).signal
      const ctx = makeContext(request, frame, rev, params, signal)
      return handler(params, ctx).pipe(
        Effect.flatMap((result) => encodeResult(method, rev, result)),
        Effect.onInterrupt(() => Effect.sync(() => controller?.abort()))
      )
    }

    engine = yield* Engine.make({
      onRequest: (request, frame) =>
        Effect.mapError(
          dispatch(request, frame),
          (e) => McpError.toWire(e, revision ?? Revision.latestHandshake)
        ),
      onNotification: (notification) => {
        switch (notification.method) {
          case "notifications/initialized":
            return Deferred.succeed(initialized, undefined)
          default:
            return Effect.logDebug(`effect-mcp: ignored notification ${notification.method}`)
        }
      },
      acceptsBatch: () => revision === "2025-03-26"
    }, options.concurrency === undefined ? {} : { concurrency: options.concurrency })

    // ---------- server-pushed notifications ----------

    const listChangedMethod = {
      tools: "notifications/tools/list_changed",
      resources: "notifications/resources/list_changed",
      prompts: "notifications/prompts/list_changed"
    } as const
    const debounce = options.listChangedDebounce ?? Duration.millis(10)

    yield* Stream.fromPubSub(server.changes).pipe(
      Stream.groupedWithin(1024, debounce),
      Stream.runForEach((kinds) =>
        Effect.forEach(new Set(kinds), (kind) => {
          const rev = revision
          if (!ready || rev === undefined) return Effect.void
          const declared = record(record(serverCapabilities)[kind])
          return declared.listChanged === true ? notify(listChangedMethod[kind], rev, {}) : Effect.void
        }, { discard: true })
      ),
      Effect.forkScoped
    )

    yield* Stream.fromPubSub(server.resourceUpdates).pipe(
      Stream.runForEach((uri) => {
        const rev = revision
        return rev !== undefined && subscriptions.has(uri) ? notify("notifications/resources/updated", rev, { uri }) : Effect.void
      }),
      Effect.forkScoped
    )

    return { engine, closed: engine.closed }
  })
