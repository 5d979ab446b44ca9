/**
 * McpHost: one process that keeps many MCP servers alive and presents them as one. Each server is a
 * supervised connection (restarted on a Schedule, health-checked, stopped with the host's scope); their
 * tools, resources and prompts form one catalogue whose names are prefixed by server; calls are routed
 * by name; what happens is a Stream of HostEvents.
 */
import { ClientHandlers, type Errors, McpClient, Transport } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import type { Mcp } from "@effect-mcp/schema"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as HostConfig from "./HostConfig.js"
import { PromptNotFound, ResourceNotFound, ServerUnavailable, ToolNotFound, UnknownServer } from "./HostError.js"
import { HostEvent } from "./HostEvent.js"
import * as Restart from "./internal/restart.js"

/** How a server is reached: an entry of the configuration file, or any Transport Layer built in code. */
export type ServerSpec = HostConfig.ServerConfig | { readonly transport: Layer.Layer<Transport.Transport, unknown> }

/** How the host runs its servers. */
export interface Options {
  /** The servers, by name (the prefix of their tools' and prompts' names). */
  readonly servers: Readonly<Record<string, ServerSpec>>
  /** Between the server's name and its tool's or prompt's name (default `__`). */
  readonly separator?: string
  /**
   * The delays between reconnection attempts, fed the reason of each failure; when it ends the server stays down
   * (default: exponential from 250 ms, doubling, jittered, each delay capped at 30 s, never giving up). The
   * schedule starts over once a connection has been up.
   */
  readonly restart?: Schedule.Schedule<unknown, string>
  /** Health checks of connected servers: `ping`, or `server/discover` under 2026-07-28 (default every 30 s, 10 s timeout). */
  readonly healthCheck?:
    | { readonly interval?: Duration.DurationInput; readonly timeout?: Duration.DurationInput }
    | false
  /** How long one connection attempt may take, handshake included (default 30 s). */
  readonly connectTimeout?: Duration.DurationInput
  /** Servers started at their first use instead of at host start: all (`true`) or those named. */
  readonly lazy?: boolean | ReadonlyArray<string>
  /** How the host introduces itself to servers (default `effect-mcp-host`). */
  readonly clientInfo?: { readonly name: string; readonly version: string }
  /** The default timeout of calls (default 60 s). */
  readonly requestTimeout?: Duration.DurationInput
  /** What becomes of stdio servers' stderr (default: forwarded to the logger). */
  readonly stderr?: "log" | "inherit" | "ignore"
}

/** A tool of the catalogue. */
export interface HostTool {
  /** The prefixed name the host routes by. */
  readonly name: string
  readonly server: string
  readonly tool: Mcp.Tool
}

/** A resource of the catalogue (resources keep their URIs; the server is the one that lists it). */
export interface HostResource {
  readonly server: string
  readonly resource: Mcp.Resource
}

/** A resource template of the catalogue. */
export interface HostResourceTemplate {
  readonly server: string
  readonly template: Mcp.ResourceTemplate
}

/** A prompt of the catalogue. */
export interface HostPrompt {
  /** The prefixed name the host routes by. */
  readonly name: string
  readonly server: string
  readonly prompt: Mcp.Prompt
}

/** Everything every connected server offers. */
export interface Catalogue {
  readonly tools: ReadonlyArray<HostTool>
  readonly resources: ReadonlyArray<HostResource>
  readonly resourceTemplates: ReadonlyArray<HostResourceTemplate>
  readonly prompts: ReadonlyArray<HostPrompt>
}

/** Where one server stands. */
export type ServerState = Data.TaggedEnum<{
  /** Lazy and not used yet. */
  Idle: {}
  /** Connecting (attempt counts since the last time it was up). */
  Starting: { readonly attempt: number }
  /** Connected. */
  Up: {
    readonly client: McpClient.McpClientService
    readonly pid: number | undefined
    readonly since: number
  }
  /** Down, and to be connected again after `delay`. */
  Restarting: { readonly attempt: number; readonly reason: string; readonly delay: Duration.Duration }
  /** Down for good: the restart schedule ended (`restart` tries again). */
  GaveUp: { readonly attempts: number; readonly reason: string }
  /** The host has shut down. */
  Stopped: {}
}>

/** Constructors and matchers of server states. */
export const ServerState = Data.taggedEnum<ServerState>()

/** One server's state, for people and tests. */
export interface ServerStatus {
  readonly server: string
  readonly state: ServerState["_tag"]
  /** The negotiated revision, while up. */
  readonly revision: string | undefined
  /** The child's process id, while up over stdio. */
  readonly pid: number | undefined
  /** Why it is down, when it is. */
  readonly reason: string | undefined
}

/** How a routed call can fail. */
export type HostCallError = McpClient.McpClientError | ServerUnavailable

/** The running host. */
export interface McpHostService {
  /** The names of the host's servers. */
  readonly servers: ReadonlyArray<string>
  /** Every server's state. */
  readonly statuses: Effect.Effect<ReadonlyArray<ServerStatus>>
  /** The combined catalogue of the connected servers. */
  readonly catalogue: Effect.Effect<Catalogue>
  /** What happens to the servers, ending with the host (the last 256 events are replayed to each new subscriber). */
  readonly events: Stream.Stream<HostEvent>
  /** The client of a connected server (starting a lazy one). */
  readonly client: (server: string) => Effect.Effect<McpClient.McpClientService, ServerUnavailable | UnknownServer>
  /** Calls a tool by its prefixed name. */
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpClient.CallOptions
  ) => Effect.Effect<Mcp.CallToolResult, HostCallError | ToolNotFound>
  /** Calls a tool by its prefixed name, as a Stream of progress updates ending in the result. */
  readonly callToolStream: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: Omit<McpClient.CallOptions, "onProgress">
  ) => Stream.Stream<McpClient.CallEvent<Mcp.CallToolResult>, HostCallError | ToolNotFound>
  /** Reads a resource from the server that lists it (or the one named). */
  readonly readResource: (
    uri: string,
    options?: { readonly server?: string }
  ) => Effect.Effect<Mcp.ReadResourceResult, HostCallError | ResourceNotFound | UnknownServer>
  /** Gets a prompt by its prefixed name. */
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>
  ) => Effect.Effect<Mcp.GetPromptResult, HostCallError | PromptNotFound>
  /** Drops a server's connection and connects it again now (also after the schedule gave up). */
  readonly restart: (server: string) => Effect.Effect<void, UnknownServer>
}

/** The host. */
export class McpHost extends Context.Tag("@effect-mcp/host/McpHost")<McpHost, McpHostService>() {}

interface Lists {
  readonly tools: ReadonlyArray<Mcp.Tool>
  readonly resources: ReadonlyArray<Mcp.Resource>
  readonly resourceTemplates: ReadonlyArray<Mcp.ResourceTemplate>
  readonly prompts: ReadonlyArray<Mcp.Prompt>
}

const noLists: Lists = { tools: [], resources: [], resourceTemplates: [], prompts: [] }

interface Entry {
  readonly name: string
  readonly spec: ServerSpec
  readonly state: SubscriptionRef.SubscriptionRef<ServerState>
  readonly lists: Ref.Ref<Lists>
  /** Opened at host start for eager servers, at first use for lazy ones. */
  readonly wanted: Effect.Latch
  /** A restart request: ends the current connection, or the wait before the next attempt. */
  readonly kick: Queue.Queue<void>
}

/** The end of one connection: why, and whether it had been up. */
interface Ended {
  readonly reason: string
  readonly wasUp: boolean
}

const errorText = (e: unknown): string =>
  typeof e === "object" && e !== null && "reason" in e && typeof e.reason === "string"
    ? e.reason
    : e instanceof Error
    ? e.message
    : String(e)

/**
 * Whether a call's failure means the server's connection is gone: it closed, its transport failed, or the server
 * forgot our session and would not let us start another.
 */
const isGone = (e: unknown): e is Errors.ConnectionClosed | Transport.TransportError | Transport.SessionExpired =>
  typeof e === "object" && e !== null && "_tag" in e &&
  (e._tag === "ConnectionClosed" || e._tag === "TransportError" || e._tag === "SessionExpired")

/** The ServerUnavailable of a gone connection; a session that expired also restarts the server's connection. */
const goneFrom = (entry: Entry, e: Errors.ConnectionClosed | Transport.TransportError | Transport.SessionExpired) => {
  if (e._tag === "SessionExpired") Queue.unsafeOffer(entry.kick, undefined)
  return new ServerUnavailable({ server: entry.name, reason: e._tag === "SessionExpired" ? e.message : errorText(e) })
}

const unavailable = (entry: Entry) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, Errors.ConnectionClosed | Transport.TransportError | Transport.SessionExpired> => isGone(e),
    (e) => Effect.fail(goneFrom(entry, e))
  )

const ifUnavailable = (entry: Entry) => (e: unknown) => isGone(e) ? goneFrom(entry, e) : e

/** Starts every server (eager ones at once) and supervises them until the scope closes. */
export const make = (options: Options): Effect.Effect<McpHostService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const separator = options.separator ?? "__"
    const schedule = options.restart ?? Restart.defaultSchedule
    const connectTimeout = Duration.decode(options.connectTimeout ?? "30 seconds")
    const health = options.healthCheck === false ? undefined : {
      interval: Duration.decode(options.healthCheck?.interval ?? "30 seconds"),
      timeout: Duration.decode(options.healthCheck?.timeout ?? "10 seconds")
    }
    const isLazy = (name: string) =>
      options.lazy === true || (Array.isArray(options.lazy) && options.lazy.includes(name))

    const sampling = yield* Effect.serviceOption(ClientHandlers.SamplingHandler)
    const elicitation = yield* Effect.serviceOption(ClientHandlers.ElicitationHandler)
    const roots = yield* Effect.serviceOption(ClientHandlers.RootsProvider)
    const withHandlers = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Option.isSome(sampling) ? Effect.provideService(ClientHandlers.SamplingHandler, sampling.value) : (e) => e,
        Option.isSome(elicitation)
          ? Effect.provideService(ClientHandlers.ElicitationHandler, elicitation.value)
          : (e) => e,
        Option.isSome(roots) ? Effect.provideService(ClientHandlers.RootsProvider, roots.value) : (e) => e
      )

    // One pair of keep-alive agents (one connection pool) for every HTTP server of the host, alive as long as the host.
    const agents = yield* McpNodeHttpClient.agents
    const events = yield* PubSub.unbounded<HostEvent>({ replay: 256 })
    const publish = (event: HostEvent) => PubSub.publish(events, event)

    const entries = new Map<string, Entry>()
    for (const [name, spec] of Object.entries(options.servers)) {
      entries.set(name, {
        name,
        spec,
        state: yield* SubscriptionRef.make<ServerState>(
          isLazy(name) ? ServerState.Idle() : ServerState.Starting({ attempt: 1 })
        ),
        lists: yield* Ref.make(noLists),
        wanted: yield* Effect.makeLatch(!isLazy(name)),
        kick: yield* Queue.sliding<void>(1)
      })
    }

    // ---------- one connection ----------

    /** Builds the server's transport; the child's pid and exit when it is a stdio server. */
    const transportOf = (spec: ServerSpec, name: string) =>
      Effect.gen(function*() {
        if ("transport" in spec) {
          const context = yield* Layer.build(spec.transport)
          return { transport: Context.get(context, Transport.Transport), pid: undefined, exited: Effect.never }
        }
        if (HostConfig.isStdio(spec)) {
          const child = yield* StdioClientTransport.make({
            command: spec.command,
            ...(spec.args === undefined ? {} : { args: spec.args }),
            ...(spec.env === undefined ? {} : { env: spec.env }),
            ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
            stderr: options.stderr ?? "log"
          }).pipe(Effect.annotateLogs("server", name))
          return {
            transport: child as Transport.TransportService,
            pid: child.pid as number | undefined,
            exited: Effect.map(child.exited, StdioClientTransport.describeExit)
          }
        }
        const transport = yield* McpNodeHttpClient.make({
          url: spec.url,
          ...(spec.headers === undefined ? {} : { headers: spec.headers })
        }, agents)
        return { transport, pid: undefined, exited: Effect.never }
      })

    const listsOf = (client: McpClient.McpClientService) => {
      const caps = client.serverCapabilities
      const orNone = <A>(has: unknown, list: Effect.Effect<ReadonlyArray<A>, McpClient.McpClientError>) =>
        has === undefined ? Effect.succeed<ReadonlyArray<A>>([]) : list
      return Effect.all({
        tools: orNone(caps.tools, client.listTools()),
        resources: orNone(caps.resources, client.listResources()),
        resourceTemplates: orNone(caps.resources, client.listResourceTemplates()),
        prompts: orNone(caps.prompts, client.listPrompts())
      }, { concurrency: "unbounded" })
    }

    const refresh = (entry: Entry, client: McpClient.McpClientService) =>
      Effect.gen(function*() {
        const lists = yield* listsOf(client)
        yield* Ref.set(entry.lists, lists)
        yield* publish(HostEvent.CatalogueChanged({
          server: entry.name,
          tools: lists.tools.length,
          resources: lists.resources.length,
          prompts: lists.prompts.length
        }))
      })

    /** What tells the host that a server's lists changed: notifications, or a `subscriptions/listen` stream. */
    const changesOf = (client: McpClient.McpClientService): Stream.Stream<unknown, unknown> => {
      if (!client.stateless) {
        return Stream.mergeAll([client.toolListChanged, client.resourceListChanged, client.promptListChanged], {
          concurrency: "unbounded"
        })
      }
      const caps = client.serverCapabilities
      return client.listen({
        ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
        ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
        ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {})
      }).pipe(Stream.filter((n) => n.method.endsWith("/list_changed")))
    }

    const checkHealth = (client: McpClient.McpClientService, timeout: Duration.Duration) =>
      client.stateless
        ? Effect.asVoid(client.request("server/discover", undefined, { timeout }))
        : client.ping({ timeout })

    /** Connects once and serves until the connection ends, fails its health check or a restart is asked for. */
    const connection = (entry: Entry, attempt: number): Effect.Effect<Ended> => {
      let wasUp = false
      return Effect.scoped(Effect.gen(function*() {
        yield* SubscriptionRef.set(entry.state, ServerState.Starting({ attempt }))
        yield* publish(HostEvent.ServerStarting({ server: entry.name, attempt }))
        const { client, exited, pid } = yield* Effect.gen(function*() {
          const { exited, pid, transport } = yield* transportOf(entry.spec, entry.name)
          const key = serverKey(entry.spec, entry.name)
          const client = yield* withHandlers(McpClient.make({
            name: options.clientInfo?.name ?? "effect-mcp-host",
            version: options.clientInfo?.version ?? "0.1.0",
            ...(key === undefined ? {} : { server: key }),
            ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout })
          })).pipe(
            Effect.provideService(Transport.Transport, transport),
            Effect.tap((client) => Effect.annotateLogs(refresh(entry, client), "server", entry.name)),
            // A child that died while connecting is reported by how it ended (its code, its stderr).
            Effect.catchAll((e) =>
              Effect.flatMap(
                Effect.timeoutTo(exited, {
                  duration: "500 millis",
                  onSuccess: (reason) => reason,
                  onTimeout: () => errorText(e)
                }),
                Effect.fail
              )
            )
          )
          return { client, exited, pid }
        }).pipe(
          Effect.timeoutFail({
            duration: connectTimeout,
            onTimeout: () => `no connection within ${Duration.format(connectTimeout)}`
          }),
          Effect.mapError(errorText)
        )
        wasUp = true
        yield* SubscriptionRef.set(entry.state, ServerState.Up({ client, pid, since: Date.now() }))
        yield* publish(
          HostEvent.ServerUp({ server: entry.name, revision: client.revision, serverInfo: client.serverInfo, pid })
        )
        yield* changesOf(client).pipe(
          Stream.debounce("20 millis"),
          Stream.runForEach(() => Effect.ignore(refresh(entry, client))),
          Effect.ignore,
          Effect.forkScoped
        )
        const unhealthy = health === undefined ? Effect.never : checkHealth(client, health.timeout).pipe(
          Effect.delay(health.interval),
          Effect.forever,
          Effect.catchAll((e) => Effect.succeed(`health check failed: ${errorText(e)}`))
        )
        // A stdio child's exit (its code, its stderr) says more than the closed connection it causes.
        const closed = Effect.zipRight(
          client.closed,
          Effect.timeoutTo(exited, {
            duration: "500 millis",
            onSuccess: (r) => r,
            onTimeout: () => "the connection closed"
          })
        )
        return yield* Effect.raceAll([
          closed,
          unhealthy,
          Effect.as(Queue.take(entry.kick), "a restart was asked for")
        ])
      })).pipe(
        Effect.map((reason) => ({ reason, wasUp })),
        Effect.catchAllCause((cause) =>
          Effect.succeed({
            reason: Option.getOrElse(Cause.failureOption(cause), () => Cause.pretty(cause)),
            wasUp
          })
        )
      )
    }

    // ---------- supervision ----------

    const supervise = (entry: Entry) =>
      Effect.gen(function*() {
        yield* entry.wanted.await
        let driver = yield* Restart.driver(schedule)
        let attempt = 1
        for (;;) {
          const ended = yield* connection(entry, attempt)
          yield* Ref.set(entry.lists, noLists)
          yield* publish(HostEvent.ServerDown({ server: entry.name, reason: ended.reason }))
          if (ended.wasUp) {
            driver = yield* Restart.driver(schedule)
            attempt = 1
          }
          const delay = yield* driver.next(ended.reason)
          if (Option.isNone(delay)) {
            yield* SubscriptionRef.set(entry.state, ServerState.GaveUp({ attempts: attempt, reason: ended.reason }))
            yield* publish(HostEvent.ServerGaveUp({ server: entry.name, reason: ended.reason, attempts: attempt }))
            yield* Queue.take(entry.kick)
            driver = yield* Restart.driver(schedule)
            attempt = 1
            continue
          }
          attempt++
          yield* SubscriptionRef.set(
            entry.state,
            ServerState.Restarting({ attempt, reason: ended.reason, delay: delay.value })
          )
          yield* publish(HostEvent.ServerRestarting({ server: entry.name, attempt, delay: delay.value }))
          yield* Effect.raceFirst(Effect.sleep(delay.value), Queue.take(entry.kick))
        }
      })

    yield* Effect.addFinalizer(() =>
      Effect.forEach(entries.values(), (entry) =>
        SubscriptionRef.set(entry.state, ServerState.Stopped()).pipe(
          Effect.zipRight(publish(HostEvent.ServerStopped({ server: entry.name })))
        ), { discard: true }).pipe(Effect.zipRight(publish(HostEvent.HostStopped({}))))
    )
    for (const entry of entries.values()) {
      yield* Effect.forkScoped(Effect.annotateLogs(supervise(entry), "server", entry.name))
    }

    // ---------- routing ----------

    const entryOf = (server: string) => {
      const entry = entries.get(server)
      return entry === undefined ? Effect.fail(new UnknownServer({ server })) : Effect.succeed(entry)
    }

    /** The client of a connected server; a lazy or starting server is waited for, a down one fails at once. */
    const clientOf = (entry: Entry): Effect.Effect<McpClient.McpClientService, ServerUnavailable> =>
      Effect.gen(function*() {
        yield* entry.wanted.open
        const settled = yield* entry.state.changes.pipe(
          Stream.filter((s) => s._tag !== "Idle" && s._tag !== "Starting"),
          Stream.runHead,
          Effect.map(Option.getOrElse((): ServerState => ServerState.Stopped()))
        )
        return yield* ServerState.$match(settled, {
          Up: (s) => Effect.succeed(s.client),
          Restarting: (s) =>
            Effect.fail(
              new ServerUnavailable({
                server: entry.name,
                reason: `restarting (attempt ${s.attempt}) after: ${s.reason}`
              })
            ),
          GaveUp: (s) =>
            Effect.fail(
              new ServerUnavailable({ server: entry.name, reason: `gave up after ${s.attempts} attempts: ${s.reason}` })
            ),
          Stopped: () => Effect.fail(new ServerUnavailable({ server: entry.name, reason: "the host has stopped" })),
          Idle: () => Effect.die("unreachable"),
          Starting: () => Effect.die("unreachable")
        })
      })

    const catalogue = Effect.gen(function*() {
      const tools: Array<HostTool> = []
      const resources: Array<HostResource> = []
      const resourceTemplates: Array<HostResourceTemplate> = []
      const prompts: Array<HostPrompt> = []
      for (const entry of entries.values()) {
        const lists = yield* Ref.get(entry.lists)
        for (const tool of lists.tools) {
          tools.push({ name: `${entry.name}${separator}${tool.name}`, server: entry.name, tool })
        }
        for (const resource of lists.resources) {
          resources.push({ server: entry.name, resource })
        }
        for (const template of lists.resourceTemplates) resourceTemplates.push({ server: entry.name, template })
        for (const prompt of lists.prompts) {
          prompts.push({ name: `${entry.name}${separator}${prompt.name}`, server: entry.name, prompt })
        }
      }
      return { tools, resources, resourceTemplates, prompts }
    })

    /** Splits a prefixed name into its server's entry and the server's own name for the thing. */
    const route = (name: string): [Entry, string] | undefined => {
      for (const entry of entries.values()) {
        const prefix = `${entry.name}${separator}`
        if (name.startsWith(prefix) && name.length > prefix.length) return [entry, name.slice(prefix.length)]
      }
      return undefined
    }

    const toolRoute = (name: string) => {
      const routed = route(name)
      return routed === undefined ? Effect.fail(new ToolNotFound({ name })) : Effect.succeed(routed)
    }

    const callTool: McpHostService["callTool"] = (name, args, callOptions) =>
      Effect.flatMap(toolRoute(name), ([entry, tool]) =>
        Effect.flatMap(clientOf(entry), (client) => client.callTool(tool, args, callOptions)).pipe(
          unavailable(entry)
        ))

    const callToolStream: McpHostService["callToolStream"] = (name, args, callOptions) =>
      Stream.unwrap(Effect.map(toolRoute(name), ([entry, tool]) =>
        Stream.unwrap(Effect.map(clientOf(entry), (client) =>
          client.callToolStream(tool, args, callOptions))).pipe(
            Stream.mapError(ifUnavailable(entry))
          ))) as Stream.Stream<McpClient.CallEvent<Mcp.CallToolResult>, HostCallError | ToolNotFound>

    const readResource: McpHostService["readResource"] = (uri, readOptions) =>
      Effect.gen(function*() {
        let entry: Entry
        if (readOptions?.server !== undefined) {
          entry = yield* entryOf(readOptions.server)
        } else {
          const listing = (yield* catalogue).resources.filter((r) =>
            r.resource.uri === uri
          ).map((r) =>
            r.server
          )
          const servers = [...new Set(listing)]
          if (servers.length !== 1) {
            return yield* new ResourceNotFound({
              uri,
              reason: servers.length === 0
                ? "no connected server lists it (name the server to read it anyway)"
                : `${servers.join(" and ")} all list it (name the server)`
            })
          }
          entry = entries.get(servers[0]!)!
        }
        const client = yield* clientOf(entry)
        return yield* unavailable(entry)(client.readResource(uri))
      })

    const getPrompt: McpHostService["getPrompt"] = (name, args) => {
      const routed = route(name)
      if (routed === undefined) return Effect.fail(new PromptNotFound({ name }))
      const [entry, prompt] = routed
      return Effect.flatMap(clientOf(entry), (client) => client.getPrompt(prompt, args)).pipe(unavailable(entry))
    }

    const statuses = Effect.forEach([...entries.values()], (entry) =>
      Effect.map(SubscriptionRef.get(entry.state), (state): ServerStatus => ({
        server: entry.name,
        state: state._tag,
        revision: state._tag === "Up" ? state.client.revision : undefined,
        pid: state._tag === "Up" ? state.pid : undefined,
        reason: state._tag === "Restarting" || state._tag === "GaveUp" ? state.reason : undefined
      })))

    // Host start: every eager server has connected, or failed its first attempt, before the host is handed out.
    yield* Effect.forEach(
      [...entries.values()].filter((e) =>
        !isLazy(e.name)
      ),
      (entry) =>
        entry.state.changes.pipe(
          Stream.filter((s) => s._tag !== "Starting"),
          Stream.runHead
        ),
      { concurrency: "unbounded", discard: true }
    )

    return {
      servers: [...entries.keys()],
      statuses,
      catalogue,
      events: Stream.fromPubSub(events).pipe(Stream.takeUntil((e) => e._tag === "HostStopped")),
      client: (server) => Effect.flatMap(entryOf(server), clientOf),
      callTool,
      callToolStream,
      readResource,
      getPrompt,
      restart: (server) =>
        Effect.flatMap(entryOf(server), (entry) =>
          Effect.zipRight(entry.wanted.open, Effect.asVoid(Queue.offer(entry.kick, undefined))))
    } satisfies McpHostService
  })

/** Names a server for the client's negotiation memory: its command line or URL. */
const serverKey = (spec: ServerSpec, name: string): string | undefined =>
  "transport" in spec
    ? undefined
    : HostConfig.isStdio(spec)
    ? `stdio:${name}:${[spec.command, ...(spec.args ?? [])].join(" ")}`
    : `http:${spec.url}`

/** The host as a Layer; server→client requests are answered by the ClientHandlers Layers it is given. */
export const layer = (options: Options): Layer.Layer<McpHost> => Layer.scoped(McpHost, make(options))

/** A host of the servers of a configuration (other options as given). */
export const fromConfig = (config: HostConfig.HostConfig, options: Omit<Options, "servers"> = {}): Options => ({
  ...options,
  servers: config.mcpServers
})

/** The host of a configuration file (`{"mcpServers": {...}}`), as a Layer. */
export const layerConfigFile = (
  path: string,
  options: Omit<Options, "servers"> = {}
): Layer.Layer<McpHost, HostConfig.ConfigError, FileSystem.FileSystem> =>
  Layer.scoped(McpHost, Effect.flatMap(HostConfig.load(path), (config) => make(fromConfig(config, options))))
