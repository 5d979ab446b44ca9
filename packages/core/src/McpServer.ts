/**
 * McpServer: the registry of a server's tools, resources, templates and prompts, the Layers that
 * register definitions into it (composition is `Layer.merge`), and `serve`, which runs one
 * connection's session over the current Transport (`connectWith` and `track` are for transports).
 */
import type { Mcp } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as EventBus from "./EventBus.js"
import * as Engine from "./internal/engine.js"
import * as Operations from "./internal/operations.js"
import * as RequestState from "./internal/requestState.js"
import * as Scoped from "./internal/scoped.js"
import { tasksExtension } from "./internal/server/meta.js"
import { RuntimeId, ServerRuntime } from "./internal/server/runtime.js"
import type {
  CacheableMethod,
  ConnectionCounts,
  ListKind,
  McpServerService,
  Options,
  ServerStats
} from "./internal/server/service.js"
import * as ServerSession from "./internal/server/session.js"
import * as Prompt from "./Prompt.js"
import type { RequestContext } from "./RequestContext.js"
import * as RequestStateKeys from "./RequestStateKeys.js"
import * as Resource from "./Resource.js"
import * as TaskStore from "./TaskStore.js"
import * as Tool from "./Tool.js"
import type * as Transport from "./Transport.js"

// The server's types live in internal/server/service.ts, which the session's modules import instead of this one.
export type { CacheableMethod, ConnectionCounts, ListKind, McpServerService, Options, ServerStats }

/** The default of `Options.maxDepth`: a frame nested deeper is refused unread. */
export const defaultMaxDepth = Engine.defaultMaxDepth

/** The default of `Options.maxBatchSize`: a longer JSON-RPC batch is refused whole. */
export const defaultMaxBatchSize = Engine.defaultMaxBatchSize

/** The server being defined. */
export class McpServer extends Context.Tag("@effect-mcp/core/McpServer")<McpServer, McpServerService>() {}

/** What a registry keeps, by kind. */
interface Definitions {
  readonly tools: Tool.Tool
  readonly resources: Resource.Resource
  readonly templates: Resource.Template
  readonly prompts: Prompt.Prompt
}

const sizeOf = (map: Map<string, unknown> | undefined): number => map?.size ?? 0

const valuesOf = <A>(map: Map<string, A> | undefined): Array<A> => map === undefined ? [] : [...map.values()]

/** The operations of a registry, made on first use (see internal/operations.ts). */
type RegistryOperations = Omit<McpServerService, "info" | "options" | typeof RuntimeId>

/** The operations' types on the class (declaration merging): each registry defines them as own accessors. */
interface Registry extends RegistryOperations {}

/**
 * A server's registry. Its operations are own accessors that bind each on first use (destructuring them works, and
 * a spread copies them: internal/operations.ts); what its connections share beyond it is its runtime
 * (internal/server/runtime.ts), held under `RuntimeId`, an own property that a spread of the registry copies. Each
 * kind's map is made for its first definition (an empty Map is 184 bytes; most servers define one or two kinds).
 */
class Registry implements McpServerService, Operations.Holder {
  [Operations.Made]: Record<string, unknown> | undefined = undefined
  readonly info: Mcp.Implementation
  readonly #maps: { -readonly [K in keyof Definitions]?: Map<string, Definitions[K]> } = {}
  #capabilities: Mcp.ServerCapabilities | undefined
  readonly [RuntimeId]: ServerRuntime

  constructor(readonly options: Options, runtime: ServerRuntime) {
    const { description, icons, name, title, version, websiteUrl } = options
    this.info = {
      name,
      version,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(websiteUrl === undefined ? {} : { websiteUrl }),
      ...(icons === undefined ? {} : { icons })
    }
    this[RuntimeId] = runtime
    Object.defineProperties(this, Registry.#descriptors)
  }

  #changed(kind: ListKind): Effect.Effect<void> {
    this.#capabilities = undefined
    return this[RuntimeId].listChanged(kind)
  }

  #put<K extends keyof Definitions>(of: K, key: string, value: Definitions[K], kind: ListKind): Effect.Effect<void> {
    return Effect.suspend(() => {
      const map: Map<string, Definitions[K]> = this.#maps[of] ??= new Map()
      map.set(key, value)
      return this.#changed(kind)
    })
  }

  #drop(of: keyof Definitions, key: string, kind: ListKind): Effect.Effect<void> {
    return Effect.suspend(() => (this.#maps[of]?.delete(key) === true ? this.#changed(kind) : Effect.void))
  }

  #derive(): Mcp.ServerCapabilities {
    const forced = this.options.capabilities ?? {}
    const maps = this.#maps
    const hasResources = sizeOf(maps.resources) > 0 || sizeOf(maps.templates) > 0 || forced.resources === true
    const hasPrompts = sizeOf(maps.prompts) > 0 || forced.prompts === true
    const hasTasks = this.tools().some((t) => (t.descriptor.execution?.taskSupport ?? "forbidden") !== "forbidden")
    const extensions = hasTasks ? { ...forced.extensions, [tasksExtension]: {} } : forced.extensions
    return {
      ...(sizeOf(maps.tools) > 0 || forced.tools === true ? { tools: { listChanged: true } } : {}),
      ...(hasResources ? { resources: { listChanged: true, subscribe: true } } : {}),
      ...(hasPrompts ? { prompts: { listChanged: true } } : {}),
      ...(hasPrompts || hasResources ? { completions: {} } : {}),
      ...(forced.logging === false ? {} : { logging: {} }),
      ...(forced.experimental === undefined ? {} : { experimental: forced.experimental }),
      ...(hasTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      ...(extensions === undefined ? {} : { extensions })
    } as Mcp.ServerCapabilities
  }

  static readonly #descriptors = Operations.descriptors<Registry, RegistryOperations>({
    addTool: (self) => (t: Tool.Tool) => self.#put("tools", t.descriptor.name, t, "tools"),
    removeTool: (self) => (n: string) => self.#drop("tools", n, "tools"),
    addResource: (self) => (r: Resource.Resource) => self.#put("resources", r.descriptor.uri, r, "resources"),
    removeResource: (self) => (uri: string) => self.#drop("resources", uri, "resources"),
    addTemplate: (self) => (t: Resource.Template) => self.#put("templates", t.descriptor.uriTemplate, t, "resources"),
    removeTemplate: (self) => (uriTemplate: string) => self.#drop("templates", uriTemplate, "resources"),
    addPrompt: (self) => (p: Prompt.Prompt) => self.#put("prompts", p.descriptor.name, p, "prompts"),
    removePrompt: (self) => (n: string) => self.#drop("prompts", n, "prompts"),
    tools: (self) => () => valuesOf(self.#maps.tools),
    tool: (self) => (n: string) => self.#maps.tools?.get(n),
    resources: (self) => () => valuesOf(self.#maps.resources),
    resource: (self) => (uri: string) => self.#maps.resources?.get(uri),
    templates: (self) => () => valuesOf(self.#maps.templates),
    prompts: (self) => () => valuesOf(self.#maps.prompts),
    prompt: (self) => (n: string) => self.#maps.prompts?.get(n),
    capabilities: (self) => (): Mcp.ServerCapabilities => (self.#capabilities ??= self.#derive()),
    notifyResourceUpdated: (self) => (uri: string) => Effect.suspend(() => self[RuntimeId].resourceUpdated(uri)),
    stats: (self) => (): ServerStats => self[RuntimeId].stats()
  })
}

/**
 * Makes a server registry (its tasks run in the given scope). Its shared state is what the context holds, else kept
 * in this process: the `TaskStore` (else in memory, with `options.tasks`), the `RequestStateKeys` (else
 * `options.requestStateKey`, or a random key) and the `EventBus` to the server's other processes (else none).
 */
export const make = (options: Options): Effect.Effect<McpServerService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const configuredTasks = yield* Effect.serviceOption(TaskStore.TaskStore)
    const keys = yield* Effect.serviceOption(RequestStateKeys.RequestStateKeys)
    const bus = yield* Effect.serviceOption(EventBus.EventBus)
    const tasks = Option.isSome(configuredTasks)
      ? configuredTasks.value
      : yield* TaskStore.makeMemory(options.tasks ?? {})
    const signer = Option.isSome(keys)
      ? RequestState.fromKeys(keys.value, options.requestStateMaxAge)
      : RequestState.make(options.requestStateKey, options.requestStateMaxAge)
    const shared = Option.isSome(bus) || Option.isSome(configuredTasks)
    const runtime = new ServerRuntime(
      signer,
      tasks,
      Option.getOrUndefined(bus),
      shared ? globalThis.crypto.randomUUID() : ""
    )
    yield* runtime.joinBus()
    return new Registry(options, runtime)
  })

/** A server registry as a Layer. */
export const layer = (options: Options): Layer.Layer<McpServer> => Layer.scoped(McpServer, make(options))

const registered = <R>(
  add: (server: McpServerService, context: Context.Context<Exclude<R, RequestContext>>) => Effect.Effect<string>,
  remove: (server: McpServerService, key: string) => Effect.Effect<void>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const server = yield* McpServer
      const context = yield* Effect.context<Exclude<R, RequestContext>>()
      yield* Effect.uninterruptible(Effect.flatMap(add(server, context), (key) => Scoped.onClose(remove(server, key))))
    })
  )

/**
 * Registers a tool while the Layer is alive (its requirements are provided by Layers). A handler that does not fit
 * the definition's schemas (see `Tool.HandlerCheck`) is a type error on the handler that says why.
 */
export const tool = <I, II, X extends Tool.HandlerEffect, O = never, OI = never, F = never, FI = never>(
  def: Tool.Unchecked<I, II, O, OI, F, FI, X>
): Layer.Layer<never, never, McpServer | Exclude<Effect.Effect.Context<X>, RequestContext>> =>
  registered<Effect.Effect.Context<X>>(
    (server, context) => {
      const t = Tool.make(
        def as unknown as Tool.Definition<I, II, O, OI, F, FI, Effect.Effect.Context<X>>,
        context
      )
      return Effect.as(server.addTool(t), t.descriptor.name)
    },
    (server, name) => server.removeTool(name)
  )

/** Registers a resource while the Layer is alive. */
export const resource = <R = never>(
  def: Resource.Definition<R>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  registered<R>(
    (server, context) => Effect.as(server.addResource(Resource.make(def, context)), def.uri),
    (server, uri) => server.removeResource(uri)
  )

/** Registers a resource template while the Layer is alive. */
export const resourceTemplate = <
  P = Readonly<Record<string, string>>,
  R = never,
  I extends Readonly<Record<string, string | undefined>> = Readonly<Record<string, string>>,
  F = never,
  FI = never
>(
  def: Resource.TemplateDefinition<P, R, I, F, FI>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  registered<R>(
    (server, context) => Effect.as(server.addTemplate(Resource.makeTemplate(def, context)), def.uriTemplate),
    (server, uriTemplate) => server.removeTemplate(uriTemplate)
  )

/** Registers a prompt while the Layer is alive. */
export const prompt = <
  A = {},
  R = never,
  I extends Prompt.Arguments = Readonly<Record<string, string>>,
  F = never,
  FI = never
>(
  def: Prompt.Definition<A, R, I, F, FI>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  registered<R>(
    (server, context) => Effect.as(server.addPrompt(Prompt.make(def, context)), def.name),
    (server, name) => server.removePrompt(name)
  )

const renamed = (server: McpServerService, prefix: string): McpServerService => ({
  ...server,
  addTool: (t) => server.addTool({ ...t, descriptor: { ...t.descriptor, name: prefix + t.descriptor.name } }),
  removeTool: (n) => server.removeTool(prefix + n),
  addPrompt: (p) => server.addPrompt({ ...p, descriptor: { ...p.descriptor, name: prefix + p.descriptor.name } }),
  removePrompt: (n) => server.removePrompt(prefix + n)
})

/** Prefixes the names of the tools and prompts a Layer registers, so that two servers' Layers merge without collision. */
export const prefixed = (prefix: string) => <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R | McpServer> =>
  Layer.provide(self, Layer.effect(McpServer, Effect.map(McpServer, (server) => renamed(server, prefix))))

/** One connection being served. */
export interface Connection {
  /** Completes when the connection has ended (the peer went away, or the scope closed). */
  readonly closed: Effect.Effect<void>
  /** For transports: the connection's live counts (e.g. to tell whether an HTTP session is idle). */
  readonly counts: ConnectionCounts
}

/** For transports: how `connectWith` serves a connection. */
export interface ConnectOptions {
  /**
   * Whether the connection counts as one in the server's `stats` (default true). A transport that carries many
   * peers' requests on one connection says false and counts its requests with `track` instead (one entry whose
   * `connections` says how many it is answering).
   */
  readonly counted?: boolean
}

/** For transports: `connect`, with options. */
export const connectWith = (
  options: ConnectOptions
): Effect.Effect<Connection, never, McpServer | Transport.Transport | Scope.Scope> =>
  Effect.flatMap(
    McpServer,
    (server) =>
      Effect.map(
        ServerSession.make(server, options.counted ?? true),
        (session) => ({ closed: session.closed, counts: session.counts })
      )
  )

/**
 * Starts serving one connection over the current Transport, in the current scope, and returns at once: the
 * session needs no fiber of its own while it waits for frames. It ends when the peer goes away or the scope closes.
 */
export const connect: Effect.Effect<Connection, never, McpServer | Transport.Transport | Scope.Scope> = connectWith(
  {}
)

/** Serves one connection over the current Transport until it ends (or the scope closes). */
export const serve: Effect.Effect<void, never, McpServer | Transport.Transport | Scope.Scope> = Effect.flatMap(
  connect,
  (connection) => connection.closed
)

/**
 * For transports: counts something as connections in `stats` until the scope closes (one, or as many as its
 * `connections` says: the requests a shared connection is answering).
 */
export const track = (
  server: McpServerService,
  counts: ConnectionCounts
): Effect.Effect<void, never, Scope.Scope> => server[RuntimeId].track(counts)
