/**
 * One connection to one server: build its transport (a stdio child, HTTP over the host's shared keep-alive agents, or
 * a Layer given in code), connect a client that answers server requests with the host's handlers, list what the
 * server offers, and serve until the connection closes, fails its health check or a restart is asked for.
 */
import { ClientHandlers, McpClient, Transport } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as HostConfig from "../HostConfig.js"
import { HostEvent } from "../HostEvent.js"
import type * as McpHost from "../McpHost.js"
import * as Catalogue from "./catalogue.js"
import { type Entry, ServerState } from "./servers.js"
import * as Telemetry from "./telemetry.js"

/** The end of one connection: why, and whether it had been up. */
export interface Ended {
  readonly reason: string
  readonly wasUp: boolean
}

/** Connects a server once (attempt `attempt`) and serves it until the connection ends. */
export type Connect = (entry: Entry, attempt: number) => Effect.Effect<Ended>

/** A failure's reason, for events and states. */
export const errorText = (e: unknown): string =>
  typeof e === "object" && e !== null && "reason" in e && typeof e.reason === "string"
    ? e.reason
    : e instanceof Error
    ? e.message
    : String(e)

/** Names a server for the client's negotiation memory: its command line or URL. */
const serverKey = (spec: McpHost.ServerSpec, name: string): string | undefined =>
  "transport" in spec
    ? undefined
    : HostConfig.isStdio(spec)
    ? `stdio:${name}:${[spec.command, ...(spec.args ?? [])].join(" ")}`
    : `http:${spec.url}`

/** Whether the server still answers: `ping`, or `server/discover` under 2026-07-28. */
const checkHealth = (client: McpClient.McpClientService, timeout: Duration.Duration) =>
  client.stateless
    ? Effect.asVoid(client.request("server/discover", undefined, { timeout }))
    : client.ping({ timeout })

/** What every connection of the host shares: its options, its event hub, its client handlers and HTTP agents. */
interface Connector {
  readonly options: McpHost.Options
  readonly publish: Catalogue.Publish
  readonly connectTimeout: Duration.Duration
  readonly health: { readonly interval: Duration.Duration; readonly timeout: Duration.Duration } | undefined
  /** Provides the host's ClientHandlers services (sampling, elicitation, roots) that it was given. */
  readonly withHandlers: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly agents: McpNodeHttpClient.Agents
  /** Whether the host traces its connection attempts and health checks. */
  readonly traced: boolean
}

/**
 * The host's way to connect its servers: with the ClientHandlers services in context (to answer server requests), and
 * one pair of keep-alive agents (one connection pool) for every HTTP server, alive as long as the host.
 */
export const connector = (
  options: McpHost.Options,
  publish: Catalogue.Publish
): Effect.Effect<Connect, never, Scope.Scope> =>
  Effect.gen(function*() {
    const connectTimeout = Duration.decode(options.connectTimeout ?? "30 seconds")
    const health = options.healthCheck === false ? undefined : {
      interval: Duration.decode(options.healthCheck?.interval ?? "30 seconds"),
      timeout: Duration.decode(options.healthCheck?.timeout ?? "10 seconds")
    }
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
    const agents = yield* McpNodeHttpClient.agents
    const traced = yield* Telemetry.isOn
    const shared: Connector = { options, publish, connectTimeout, health, withHandlers, agents, traced }
    return (entry, attempt) => connection(shared, entry, attempt)
  })

/** Builds the server's transport; the child's pid and exit when it is a stdio server. */
const transportOf = (connector: Connector, spec: McpHost.ServerSpec, name: string) =>
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
        stderr: connector.options.stderr ?? "log"
      }).pipe(Effect.annotateLogs("server", name))
      return {
        transport: child as Transport.TransportService,
        pid: child.pid as number | undefined,
        exited: Effect.map(child.exited, StdioClientTransport.describeExit)
      }
    }
    const plain = McpNodeHttpClient.execute(connector.agents)
    const exchange = connector.options.httpExchange
    const execute = exchange === undefined ? plain : yield* exchange({ name, config: spec }, plain)
    const transport = yield* McpHttpClient.makeWith({
      url: spec.url,
      ...(spec.headers === undefined ? {} : { headers: spec.headers })
    }, execute)
    return { transport, pid: undefined, exited: Effect.never }
  })

/** Connects within `connectTimeout`: the client, the child's exit and pid; fails with the reason it could not. */
const connect = (connector: Connector, entry: Entry) =>
  Effect.gen(function*() {
    const { options, publish } = connector
    const { exited, pid, transport } = yield* transportOf(connector, entry.spec, entry.name)
    const key = serverKey(entry.spec, entry.name)
    const client = yield* connector.withHandlers(McpClient.make({
      name: options.clientInfo?.name ?? "effect-mcp-host",
      version: options.clientInfo?.version ?? "0.1.0",
      ...(key === undefined ? {} : { server: key }),
      ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout })
    })).pipe(
      Effect.provideService(Transport.Transport, transport),
      Effect.tap((client) => Effect.annotateLogs(Catalogue.refresh(entry, client, publish), "server", entry.name)),
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
      duration: connector.connectTimeout,
      onTimeout: () => `no connection within ${Duration.format(connector.connectTimeout)}`
    }),
    Effect.mapError(errorText)
  )

/** Connects once and serves until the connection ends, fails its health check or a restart is asked for. */
const connection = (connector: Connector, entry: Entry, attempt: number): Effect.Effect<Ended> => {
  const { health, publish } = connector
  let wasUp = false
  return Effect.scoped(Effect.gen(function*() {
    yield* SubscriptionRef.set(entry.state, ServerState.Starting({ attempt }))
    yield* publish(HostEvent.ServerStarting({ server: entry.name, attempt }))
    const { client, exited, pid } = yield* connect(connector, entry).pipe(
      Telemetry.span(connector.traced, "mcp.host.connect", entry.name, { "mcp.host.attempt": attempt })
    )
    wasUp = true
    yield* SubscriptionRef.set(entry.state, ServerState.Up({ client, pid, since: Date.now() }))
    yield* publish(
      HostEvent.ServerUp({ server: entry.name, revision: client.revision, serverInfo: client.serverInfo, pid })
    )
    yield* Catalogue.follow(entry, client, publish)
    const unhealthy = health === undefined ? Effect.never : checkHealth(client, health.timeout).pipe(
      Telemetry.span(connector.traced, "mcp.host.health_check", entry.name),
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
