/**
 * Routing a call to its server: a prefixed name (`<server><separator><name>`) names the server and the server's own
 * name for the thing; a resource's URI is routed to the one connected server that lists it. A lazy or starting server
 * is waited for, a down one fails at once; a call whose connection goes away fails with ServerUnavailable.
 */
import type { Errors, McpClient, Transport } from "@effect-mcp/core"
import type { Mcp } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Match from "effect/Match"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { PromptNotFound, ResourceNotFound, ServerUnavailable, ToolNotFound } from "../HostError.js"
import type * as McpHost from "../McpHost.js"
import * as Catalogue from "./catalogue.js"
import { errorText } from "./connection.js"
import { type Entry, entryOf, type Servers, ServerState } from "./servers.js"

/** A failure that means the connection is gone. */
type Gone = Errors.ConnectionClosed | Transport.TransportError | Transport.SessionExpired

/**
 * Whether a call's failure means the server's connection is gone: it closed, its transport failed, or the server
 * forgot our session and would not let us start another.
 */
const isGone = (e: unknown): e is Gone =>
  typeof e === "object" && e !== null && "_tag" in e &&
  (e._tag === "ConnectionClosed" || e._tag === "TransportError" || e._tag === "SessionExpired")

/** The ServerUnavailable of a gone connection; a session that expired also restarts the server's connection. */
const goneFrom = (entry: Entry, e: Gone) => {
  if (e._tag === "SessionExpired") Queue.unsafeOffer(entry.kick, undefined)
  return new ServerUnavailable({ server: entry.name, reason: e._tag === "SessionExpired" ? e.message : errorText(e) })
}

/** A call whose connection went away fails with ServerUnavailable instead. */
const unavailable = (entry: Entry) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, Gone> => isGone(e),
    (e) => Effect.fail(goneFrom(entry, e))
  )

const ifUnavailable = (entry: Entry) => (e: unknown) => isGone(e) ? goneFrom(entry, e) : e

/** Where a server stands once it is neither lazy and unused nor connecting. */
type Settled = Exclude<ServerState, { readonly _tag: "Idle" | "Starting" }>

const isSettled = (state: ServerState): state is Settled => state._tag !== "Idle" && state._tag !== "Starting"

/** The client of a connected server; a lazy or starting server is waited for, a down one fails at once. */
export const clientOf = (entry: Entry): Effect.Effect<McpClient.McpClientService, ServerUnavailable> =>
  Effect.gen(function*() {
    yield* entry.wanted.open
    const settled = yield* entry.state.changes.pipe(
      Stream.filter(isSettled),
      Stream.runHead,
      Effect.map(Option.getOrElse((): Settled => ServerState.Stopped()))
    )
    return yield* Match.valueTags(settled, {
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
      Stopped: () => Effect.fail(new ServerUnavailable({ server: entry.name, reason: "the host has stopped" }))
    })
  })

/** The calls of the host that go to one server. */
export type Router = Pick<McpHost.McpHostService, "callTool" | "callToolStream" | "readResource" | "getPrompt">

/** Routes the host's calls among its servers. */
export const make = (servers: Servers, separator: string): Router => {
  /** Splits a prefixed name into its server's entry and the server's own name for the thing. */
  const route = (name: string): [Entry, string] | undefined => {
    for (const entry of servers.values()) {
      const prefix = `${entry.name}${separator}`
      if (name.startsWith(prefix) && name.length > prefix.length) return [entry, name.slice(prefix.length)]
    }
    return undefined
  }

  const toolRoute = (name: string) => {
    const routed = route(name)
    return routed === undefined ? Effect.fail(new ToolNotFound({ name })) : Effect.succeed(routed)
  }

  return {
    callTool: (name, args, callOptions) =>
      Effect.flatMap(
        toolRoute(name),
        ([entry, tool]) =>
          Effect.flatMap(clientOf(entry), (client) => client.callTool(tool, args, callOptions)).pipe(
            unavailable(entry)
          )
      ),
    callToolStream: (name, args, callOptions) =>
      Stream.unwrap(
        Effect.map(toolRoute(name), ([entry, tool]) =>
          Stream.unwrap(Effect.map(clientOf(entry), (client) =>
            client.callToolStream(tool, args, callOptions))).pipe(
              Stream.mapError(ifUnavailable(entry))
            ))
      ) as Stream.Stream<McpClient.CallEvent<Mcp.CallToolResult>, McpHost.HostCallError | ToolNotFound>,
    readResource: (uri, readOptions) =>
      Effect.gen(function*() {
        let entry: Entry
        if (readOptions?.server !== undefined) {
          entry = yield* entryOf(servers, readOptions.server)
        } else {
          const listing = (yield* Catalogue.collect(servers, separator)).resources.filter((r) => r.resource.uri === uri)
            .map((r) => r.server)
          const named = [...new Set(listing)]
          if (named.length !== 1) {
            return yield* new ResourceNotFound({
              uri,
              reason: named.length === 0
                ? "no connected server lists it (name the server to read it anyway)"
                : `${named.join(" and ")} all list it (name the server)`
            })
          }
          entry = servers.get(named[0]!)!
        }
        const client = yield* clientOf(entry)
        return yield* unavailable(entry)(client.readResource(uri))
      }),
    getPrompt: (name, args) => {
      const routed = route(name)
      if (routed === undefined) return Effect.fail(new PromptNotFound({ name }))
      const [entry, prompt] = routed
      return Effect.flatMap(clientOf(entry), (client) => client.getPrompt(prompt, args)).pipe(unavailable(entry))
    }
  }
}
