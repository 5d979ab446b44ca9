/**
 * The host's servers: one entry per configured server, holding where it stands (its ServerState), what it lists, the
 * latch that wants it started (open at host start, or at first use for a lazy server) and the queue that restarts it.
 */
import type { McpClient } from "@effect-mcp/core"
import type { Mcp } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { UnknownServer } from "../HostError.js"
import type * as McpHost from "../McpHost.js"

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

/** What one server offers, as it last listed it. */
export interface Lists {
  readonly tools: ReadonlyArray<Mcp.Tool>
  readonly resources: ReadonlyArray<Mcp.Resource>
  readonly resourceTemplates: ReadonlyArray<Mcp.ResourceTemplate>
  readonly prompts: ReadonlyArray<Mcp.Prompt>
}

/** The lists of a server that is not connected. */
export const noLists: Lists = { tools: [], resources: [], resourceTemplates: [], prompts: [] }

/** One server of the host. */
export interface Entry {
  readonly name: string
  readonly spec: McpHost.ServerSpec
  readonly state: SubscriptionRef.SubscriptionRef<ServerState>
  readonly lists: Ref.Ref<Lists>
  /** Opened at host start for eager servers, at first use for lazy ones. */
  readonly wanted: Effect.Latch
  /** A restart request: ends the current connection, or the wait before the next attempt. */
  readonly kick: Queue.Queue<void>
}

/** The host's servers, by name, in the order of the configuration. */
export type Servers = ReadonlyMap<string, Entry>

/** Whether a server starts at its first use instead of at host start. */
export const isLazy = (options: McpHost.Options, name: string): boolean =>
  options.lazy === true || (Array.isArray(options.lazy) && options.lazy.includes(name))

/** An entry for every configured server: lazy ones Idle, eager ones Starting. */
export const make = (options: McpHost.Options): Effect.Effect<Servers> =>
  Effect.gen(function*() {
    const entries = new Map<string, Entry>()
    for (const [name, spec] of Object.entries(options.servers)) {
      const lazy = isLazy(options, name)
      entries.set(name, {
        name,
        spec,
        state: yield* SubscriptionRef.make<ServerState>(
          lazy ? ServerState.Idle() : ServerState.Starting({ attempt: 1 })
        ),
        lists: yield* Ref.make(noLists),
        wanted: yield* Effect.makeLatch(!lazy),
        kick: yield* Queue.sliding<void>(1)
      })
    }
    return entries
  })

/** The entry of the server named, or UnknownServer. */
export const entryOf = (servers: Servers, server: string): Effect.Effect<Entry, UnknownServer> => {
  const entry = servers.get(server)
  return entry === undefined ? Effect.fail(new UnknownServer({ server })) : Effect.succeed(entry)
}
