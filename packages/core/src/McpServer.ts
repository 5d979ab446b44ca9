/**
 * McpServer: the registry of a server's tools, resources, templates and prompts, the Layers that
 * register definitions into it (composition is `Layer.merge`), and `serve`, which runs one
 * connection's session over the current Transport.
 */
import type { Mcp } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Engine from "./internal/engine.js"
import * as RequestState from "./internal/requestState.js"
import * as Scoped from "./internal/scoped.js"
import * as ServerSession from "./internal/serverSession.js"
import * as TaskStore from "./internal/taskStore.js"
import * as Prompt from "./Prompt.js"
import type { RequestContext } from "./RequestContext.js"
import * as Resource from "./Resource.js"
import * as Tool from "./Tool.js"
import type * as Transport from "./Transport.js"

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

/** A server's registry and settings. */
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
  /** Every change of a list. */
  readonly changes: PubSub.PubSub<ListKind>
  /** Signs and verifies multi-round-trip `requestState` (one key per server, shared by every connection). */
  readonly requestState: RequestState.Signer
  /** Every resource update. */
  readonly resourceUpdates: PubSub.PubSub<string>
  /**
   * Calls the watcher, synchronously, on every list change and resource update until the scope closes. A
   * connection watches this way so that an idle one holds no fiber and no subscription.
   */
  readonly watch: (watcher: ChangeWatcher) => Effect.Effect<void, never, Scope.Scope>
  /** Every task of every connection (tasks outlive the stateless request that created them). */
  readonly tasks: TaskStore.TaskStore
  /** What the server is doing now, over every live connection. */
  readonly stats: () => ServerStats
  /** Counts a connection in `stats` until the scope closes (each connection's session does this). */
  readonly track: (connection: ConnectionCounts) => Effect.Effect<void, never, Scope.Scope>
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

/** The default of `Options.maxDepth`: a frame nested deeper is refused unread. */
export const defaultMaxDepth = Engine.defaultMaxDepth

/** The default of `Options.maxBatchSize`: a longer JSON-RPC batch is refused whole. */
export const defaultMaxBatchSize = Engine.defaultMaxBatchSize

/** The server being defined. */
export class McpServer extends Context.Tag("@effect-mcp/core/McpServer")<McpServer, McpServerService>() {}

/**
 * A server's registry. Its operations are bound functions (destructuring them works); the hubs and the task store are
 * made on first use, behind accessors, in an object of fast properties (accessors in an object literal would make it
 * a dictionary), so a server that uses none of them holds a few fields for them.
 */
class Registry implements McpServerService {
  readonly info: Mcp.Implementation
  #changes: PubSub.PubSub<ListKind> | undefined
  #updates: PubSub.PubSub<string> | undefined
  #tasks: TaskStore.TaskStore | undefined
  readonly #tools = new Map<string, Tool.Tool>()
  readonly #resources = new Map<string, Resource.Resource>()
  readonly #templates = new Map<string, Resource.Template>()
  readonly #prompts = new Map<string, Prompt.Prompt>()
  #connections: Set<ConnectionCounts> | undefined
  #watchers: Set<ChangeWatcher> | undefined
  #capabilities: Mcp.ServerCapabilities | undefined

  constructor(
    readonly options: Options,
    readonly requestState: RequestState.Signer,
    private readonly scope: Scope.Scope
  ) {
    const { description, icons, name, title, version, websiteUrl } = options
    this.info = {
      name,
      version,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(websiteUrl === undefined ? {} : { websiteUrl }),
      ...(icons === undefined ? {} : { icons })
    }
    Object.defineProperties(this, Registry.#lazy)
  }

  /**
   * The hubs and the task store, made on first use: own accessor properties (defined once per registry, sharing their
   * functions), so that a spread of the service (`{ ...server, track }`) copies them, as it copies everything else.
   */
  static readonly #lazy: PropertyDescriptorMap = {
    changes: {
      enumerable: true,
      get(this: Registry) {
        return (this.#changes ??= Effect.runSync(PubSub.unbounded<ListKind>()))
      }
    },
    resourceUpdates: {
      enumerable: true,
      get(this: Registry) {
        return (this.#updates ??= Effect.runSync(PubSub.unbounded<string>()))
      }
    },
    tasks: {
      enumerable: true,
      get(this: Registry) {
        const { tasks } = this.options
        return (this.#tasks ??= Effect.runSync(Scope.extend(
          TaskStore.make({
            pollInterval: Duration.toMillis(tasks?.pollInterval ?? Duration.seconds(1)),
            maxTtl: Duration.toMillis(tasks?.maxTtl ?? Duration.hours(1))
          }),
          this.scope
        )))
      }
    }
  }
  declare readonly changes: PubSub.PubSub<ListKind>
  declare readonly resourceUpdates: PubSub.PubSub<string>
  declare readonly tasks: TaskStore.TaskStore

  #changed(kind: ListKind): Effect.Effect<void> {
    this.#capabilities = undefined
    if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.listChanged(kind) }
    return this.#changes === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#changes, kind))
  }

  #put<A>(map: Map<string, A>, key: string, value: A, kind: ListKind): Effect.Effect<void> {
    return Effect.suspend(() => {
      map.set(key, value)
      return this.#changed(kind)
    })
  }

  #drop<A>(map: Map<string, A>, key: string, kind: ListKind): Effect.Effect<void> {
    return Effect.suspend(() => (map.delete(key) ? this.#changed(kind) : Effect.void))
  }

  #derive(): Mcp.ServerCapabilities {
    const forced = this.options.capabilities ?? {}
    const hasResources = this.#resources.size > 0 || this.#templates.size > 0 || forced.resources === true
    const hasPrompts = this.#prompts.size > 0 || forced.prompts === true
    const hasTasks = [...this.#tools.values()].some((t) =>
      (t.descriptor.execution?.taskSupport ?? "forbidden") !== "forbidden"
    )
    const extensions = hasTasks ? { ...forced.extensions, [ServerSession.tasksExtension]: {} } : forced.extensions
    return {
      ...(this.#tools.size > 0 || forced.tools === true ? { tools: { listChanged: true } } : {}),
      ...(hasResources ? { resources: { listChanged: true, subscribe: true } } : {}),
      ...(hasPrompts ? { prompts: { listChanged: true } } : {}),
      ...(hasPrompts || hasResources ? { completions: {} } : {}),
      ...(forced.logging === false ? {} : { logging: {} }),
      ...(forced.experimental === undefined ? {} : { experimental: forced.experimental }),
      ...(hasTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      ...(extensions === undefined ? {} : { extensions })
    } as Mcp.ServerCapabilities
  }

  readonly addTool = (t: Tool.Tool) => this.#put(this.#tools, t.descriptor.name, t, "tools")
  readonly removeTool = (n: string) => this.#drop(this.#tools, n, "tools")
  readonly addResource = (r: Resource.Resource) => this.#put(this.#resources, r.descriptor.uri, r, "resources")
  readonly removeResource = (uri: string) => this.#drop(this.#resources, uri, "resources")
  readonly addTemplate = (t: Resource.Template) => this.#put(this.#templates, t.descriptor.uriTemplate, t, "resources")
  readonly removeTemplate = (uriTemplate: string) => this.#drop(this.#templates, uriTemplate, "resources")
  readonly addPrompt = (p: Prompt.Prompt) => this.#put(this.#prompts, p.descriptor.name, p, "prompts")
  readonly removePrompt = (n: string) => this.#drop(this.#prompts, n, "prompts")
  readonly tools = () => [...this.#tools.values()]
  readonly tool = (n: string) => this.#tools.get(n)
  readonly resources = () => [...this.#resources.values()]
  readonly resource = (uri: string) => this.#resources.get(uri)
  readonly templates = () => [...this.#templates.values()]
  readonly prompts = () => [...this.#prompts.values()]
  readonly prompt = (n: string) => this.#prompts.get(n)
  readonly capabilities = (): Mcp.ServerCapabilities => (this.#capabilities ??= this.#derive())
  readonly notifyResourceUpdated = (uri: string) =>
    Effect.suspend(() => {
      if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.resourceUpdated(uri) }
      return this.#updates === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#updates, uri))
    })
  readonly watch = (watcher: ChangeWatcher) =>
    Scoped.acquireSync(() => {
      ;(this.#watchers ??= new Set()).add(watcher)
    }, () => {
      this.#watchers?.delete(watcher)
    })
  readonly stats = (): ServerStats => {
    let live = 0
    let inFlight = 0
    let pending = 0
    if (this.#connections !== undefined) {
      for (const c of this.#connections) {
        if (c.isClosed?.() === true) continue
        live++
        inFlight += c.inFlight()
        pending += c.pending()
      }
    }
    return { connections: live, inFlight, pending }
  }
  readonly track = (connection: ConnectionCounts) =>
    Scoped.acquireSync(() => {
      ;(this.#connections ??= new Set()).add(connection)
    }, () => {
      this.#connections?.delete(connection)
    })
}

/** Makes a server registry (its tasks run in the given scope). */
export const make = (options: Options): Effect.Effect<McpServerService, never, Scope.Scope> =>
  Effect.map(
    Effect.scope,
    (scope) => new Registry(options, RequestState.make(options.requestStateKey, options.requestStateMaxAge), scope)
  )

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

/** Registers a tool while the Layer is alive (its requirements are provided by Layers). */
export const tool: {
  <I, II, O, OI, F = never, FI = never, R = never>(
    def: Tool.StructuredDefinition<I, II, O, OI, F, FI, R>
  ): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>>
  <I, II, F = never, FI = never, R = never>(
    def: Tool.ContentDefinition<I, II, F, FI, R>
  ): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>>
} = <I, II, O, OI, F, FI, R>(def: Tool.Definition<I, II, O, OI, F, FI, R>) =>
  registered<R>(
    (server, context) => {
      const t = Tool.make(def, context)
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
  I extends Readonly<Record<string, string | undefined>> = Readonly<Record<string, string>>
>(
  def: Resource.TemplateDefinition<P, R, I>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  registered<R>(
    (server, context) => Effect.as(server.addTemplate(Resource.makeTemplate(def, context)), def.uriTemplate),
    (server, uriTemplate) => server.removeTemplate(uriTemplate)
  )

/** Registers a prompt while the Layer is alive. */
export const prompt = <
  A = {},
  R = never,
  I extends Readonly<Record<string, string | undefined>> = Readonly<Record<string, string>>
>(
  def: Prompt.Definition<A, R, I>
): Layer.Layer<never, never, McpServer | Exclude<R, RequestContext>> =>
  registered<R>(
    (server, context) => Effect.as(server.addPrompt(Prompt.make(def, context)), def.name),
    (server, name) => server.removePrompt(name)
  )

const renamed = (server: McpServerService, prefix: string): McpServerService => ({
  ...server,
  // Forwarded, not copied: a spread would evaluate these accessors and so make the hubs and the task store now.
  get changes() {
    return server.changes
  },
  get resourceUpdates() {
    return server.resourceUpdates
  },
  get tasks() {
    return server.tasks
  },
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
}

/**
 * Starts serving one connection over the current Transport, in the current scope, and returns at once: the
 * session needs no fiber of its own while it waits for frames. It ends when the peer goes away or the scope closes.
 */
export const connect: Effect.Effect<Connection, never, McpServer | Transport.Transport | Scope.Scope> = Effect.flatMap(
  McpServer,
  (server) => Effect.map(ServerSession.make(server), (session) => ({ closed: session.closed }))
)

/** Serves one connection over the current Transport until it ends (or the scope closes). */
export const serve: Effect.Effect<void, never, McpServer | Transport.Transport | Scope.Scope> = Effect.flatMap(
  connect,
  (connection) => connection.closed
)
