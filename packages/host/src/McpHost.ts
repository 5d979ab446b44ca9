/**
 * McpHost: one process that keeps many MCP servers alive and presents them as one. Each server is a
 * supervised connection (restarted on a Schedule, health-checked, stopped with the host's scope); their
 * tools, resources and prompts form one catalogue whose names are prefixed by server; calls are routed
 * by name; what happens is a Stream of HostEvents.
 */
import type { McpClient, Transport } from "@effect-mcp/core"
import type { McpHttpClient } from "@effect-mcp/http"
import type { Mcp } from "@effect-mcp/schema"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as HostConfig from "./HostConfig.js"
import type { PromptNotFound, ResourceNotFound, ServerUnavailable, ToolNotFound, UnknownServer } from "./HostError.js"
import type { HostEvent } from "./HostEvent.js"
import * as CatalogueLists from "./internal/catalogue.js"
import * as Connection from "./internal/connection.js"
import * as Routing from "./internal/routing.js"
import * as Servers from "./internal/servers.js"
import * as Supervision from "./internal/supervision.js"
import * as Telemetry from "./internal/telemetry.js"

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
  /**
   * Wraps the exchange function of each HTTP server's transport, given its name and configuration (its `auth`
   * settings among them): where OAuth goes (`OAuthClient.wrap` of @effect-mcp/auth). Default: none.
   */
  readonly httpExchange?: (
    server: { readonly name: string; readonly config: HostConfig.HttpServer },
    execute: McpHttpClient.Execute
  ) => Effect.Effect<McpHttpClient.Execute>
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
export type ServerState = Servers.ServerState

/** Constructors and matchers of server states. */
export const ServerState = Servers.ServerState

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

/** How many supervision events hosts published, by `event` and `mcp.host.server` (recorded when a host traces). */
export const supervisionEvents = Telemetry.supervisionEvents

/** The host. */
export class McpHost extends Context.Tag("@effect-mcp/host/McpHost")<McpHost, McpHostService>() {}

/** Starts every server (eager ones at once) and supervises them until the scope closes. */
export const make = (options: Options): Effect.Effect<McpHostService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const separator = options.separator ?? "__"
    const events = yield* PubSub.unbounded<HostEvent>({ replay: 256 })
    const publish = Telemetry.counted((event: HostEvent) => PubSub.publish(events, event), yield* Telemetry.isOn)
    const connect = yield* Connection.connector(options, publish)
    const servers = yield* Servers.make(options)
    yield* Supervision.start(servers, connect, options, publish)
    return {
      servers: [...servers.keys()],
      statuses: Supervision.statuses(servers),
      catalogue: CatalogueLists.collect(servers, separator),
      events: Stream.fromPubSub(events).pipe(Stream.takeUntil((e) => e._tag === "HostStopped")),
      client: (server) => Effect.flatMap(Servers.entryOf(servers, server), Routing.clientOf),
      ...Routing.make(servers, separator),
      restart: (server) => Effect.flatMap(Servers.entryOf(servers, server), Supervision.restart)
    } satisfies McpHostService
  })

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
