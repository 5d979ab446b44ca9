/**
 * A server's runtime: what its connections share beyond the registry. The connections counted in its `stats`, the
 * change watchers of its handshake sessions, the hubs of list changes and resource updates (`subscriptions/listen`),
 * the task store and the `requestState` signer. When the server runs as several processes (an `EventBus` in context),
 * its list changes and resource updates also go out on the bus, and those of the other processes come in from it. The registry holds it under `RuntimeId`, an own property that a spread
 * of the registry copies (as `McpServer.prefixed` and a user's decorator make one), and each session reads it once,
 * when it starts.
 *
 * Measured (docs/benchmarks.md, "in-memory heap per live client+server pair, ours built from values"; "Where the
 * memory goes"): the hubs are made for their first subscriber, the task store's fiber map with its first task, and
 * the sets of connections and watchers with their first member, so that a server that uses none of them holds a few
 * fields for them (a registry was 6.9 KB with them made eagerly, 2.5 KB without).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as EventBus from "../../EventBus.js"
import type * as TaskStore from "../../TaskStore.js"
import type * as RequestState from "../requestState.js"
import * as Scoped from "../scoped.js"
import type { ChangeWatcher, ConnectionCounts, ListKind, ServerStats } from "./service.js"

/** The bus topic of list changes and resource updates. */
export const changesTopic = "changes"

/** A change as it travels on the bus: the process it happened on, and a list kind or a resource URI. */
const BusChange = Schema.parseJson(Schema.Union(
  Schema.Struct({ o: Schema.String, l: Schema.Literal("tools", "resources", "prompts") }),
  Schema.Struct({ o: Schema.String, u: Schema.String })
))
const decodeChange = Schema.decodeUnknownEither(BusChange)
const encodeChange = Schema.encodeSync(BusChange)

/** The key under which a registry holds its runtime. */
export const RuntimeId: unique symbol = Symbol.for("@effect-mcp/core/McpServer/runtime")

/** What a server's connections share: its counts, watchers, hubs, task store and request-state signer. */
export class ServerRuntime {
  #changes: PubSub.PubSub<ListKind> | undefined
  #updates: PubSub.PubSub<string> | undefined
  #connections: Set<ConnectionCounts> | undefined
  #watchers: Set<ChangeWatcher> | undefined
  #sessions = 0

  constructor(
    /** Signs and verifies multi-round-trip `requestState` (one key per server, shared by every connection). */
    readonly requestState: RequestState.Signer,
    /** Every task of every connection (tasks outlive the stateless request that created them). */
    readonly tasks: TaskStore.TaskStoreService,
    /** The bus to the server's other processes, when it has any. */
    private readonly bus?: EventBus.EventBusService,
    /** This process among the server's processes (empty when it is the only one). */
    readonly instance: string = ""
  ) {}

  /**
   * Takes the other processes' changes from the bus to this one's watchers and subscribers until the scope closes
   * (a message that does not decode is logged and skipped).
   */
  joinBus(): Effect.Effect<void, never, Scope.Scope> {
    const bus = this.bus
    if (bus === undefined) return Effect.void
    return Effect.flatMap(
      bus.subscribe(changesTopic),
      (messages) =>
        Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(messages), (message) => {
          const change = decodeChange(message)
          if (Either.isLeft(change)) {
            return Effect.logWarning(
              "effect-mcp: skipped a change on the bus that does not decode",
              change.left.message
            )
          }
          const c = change.right
          if (c.o === this.instance) return Effect.void
          return "l" in c ? this.#listChangedHere(c.l) : this.#resourceUpdatedHere(c.u)
        })))
    )
  }

  /** Publishes a change on the bus, when there is one; a change the bus cannot carry is logged. */
  #publish(change: typeof BusChange.Type): Effect.Effect<void> {
    return this.bus === undefined ? Effect.void : Effect.catchAll(
      this.bus.publish(changesTopic, encodeChange(change)),
      (error) => Effect.logWarning("effect-mcp: a change could not reach the server's other processes", error)
    )
  }

  /** A subscription to every list change until the scope closes. */
  subscribeChanges(): Effect.Effect<Queue.Dequeue<ListKind>, never, Scope.Scope> {
    return this.#changes !== undefined
      ? PubSub.subscribe(this.#changes)
      // Two first subscribers at once subscribe to the one hub that was kept.
      : Effect.flatMap(PubSub.unbounded<ListKind>(), (made) => PubSub.subscribe(this.#changes ??= made))
  }

  /** A subscription to every resource update until the scope closes. */
  subscribeUpdates(): Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope> {
    return this.#updates !== undefined
      ? PubSub.subscribe(this.#updates)
      : Effect.flatMap(PubSub.unbounded<string>(), (made) => PubSub.subscribe(this.#updates ??= made))
  }

  /** Tells every watcher and subscriber, in every process of the server, that a list changed. */
  listChanged(kind: ListKind): Effect.Effect<void> {
    return this.bus === undefined
      ? this.#listChangedHere(kind)
      : Effect.zipRight(this.#listChangedHere(kind), this.#publish({ o: this.instance, l: kind }))
  }

  /** Tells every watcher and subscriber, in every process of the server, that a resource changed. */
  resourceUpdated(uri: string): Effect.Effect<void> {
    return this.bus === undefined
      ? this.#resourceUpdatedHere(uri)
      : Effect.zipRight(this.#resourceUpdatedHere(uri), this.#publish({ o: this.instance, u: uri }))
  }

  #listChangedHere(kind: ListKind): Effect.Effect<void> {
    if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.listChanged(kind) }
    return this.#changes === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#changes, kind))
  }

  #resourceUpdatedHere(uri: string): Effect.Effect<void> {
    if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.resourceUpdated(uri) }
    return this.#updates === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#updates, uri))
  }

  /**
   * Calls the watcher, synchronously, on every list change and resource update until `forget`. A connection watches
   * this way so that an idle one holds no fiber and no subscription.
   */
  watch(watcher: ChangeWatcher): void {
    ;(this.#watchers ??= new Set()).add(watcher)
  }

  /** Counts a connection in `stats` until `forget`. */
  count(connection: ConnectionCounts): void {
    ;(this.#connections ??= new Set()).add(connection)
  }

  /** Stops counting and watching a connection (one that has ended). */
  forget(connection: ConnectionCounts & ChangeWatcher): void {
    this.#connections?.delete(connection)
    this.#watchers?.delete(connection)
  }

  /** Counts a connection in `stats` until the scope closes. */
  track(connection: ConnectionCounts): Effect.Effect<void, never, Scope.Scope> {
    return Scoped.acquireSync(() => this.count(connection), () => {
      this.#connections?.delete(connection)
    })
  }

  /** What the server is doing now, over every live connection. */
  stats(): ServerStats {
    let live = 0
    let inFlight = 0
    let pending = 0
    if (this.#connections !== undefined) {
      for (const c of this.#connections) {
        if (c.isClosed?.() === true) continue
        live += c.connections === undefined ? 1 : c.connections()
        inFlight += c.inFlight()
        pending += c.pending()
      }
    }
    return { connections: live, inFlight, pending }
  }

  /** The owner of a new handshake session's tasks in this server's store. */
  nextTaskOwner(): string {
    return this.instance === "" ? `session:${++this.#sessions}` : `session:${this.instance}:${++this.#sessions}`
  }
}
