/**
 * A server's runtime: what its connections share beyond the registry. The connections counted in its `stats`, the
 * change watchers of its handshake sessions, the hubs of list changes and resource updates (`subscriptions/listen`),
 * the task store and the `requestState` signer. The registry holds it under `RuntimeId`, an own property that a spread
 * of the registry copies (as `McpServer.prefixed` and a user's decorator make one), and each session reads it once,
 * when it starts.
 *
 * Measured (docs/benchmarks.md, "in-memory heap per live client+server pair, ours built from values"; "Where the
 * memory goes"): the hubs are made for their first subscriber, the task store's fiber map with its first task, and
 * the sets of connections and watchers with their first member, so that a server that uses none of them holds a few
 * fields for them (a registry was 6.9 KB with them made eagerly, 2.5 KB without).
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as RequestState from "../requestState.js"
import * as Scoped from "../scoped.js"
import type * as TaskStore from "../taskStore.js"
import type { ChangeWatcher, ConnectionCounts, ListKind, ServerStats } from "./service.js"

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
    readonly tasks: TaskStore.TaskStore
  ) {}

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

  /** Tells every watcher and subscriber that a list changed. */
  listChanged(kind: ListKind): Effect.Effect<void> {
    if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.listChanged(kind) }
    return this.#changes === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#changes, kind))
  }

  /** Tells every watcher and subscriber that a resource changed. */
  resourceUpdated(uri: string): Effect.Effect<void> {
    if (this.#watchers !== undefined) { for (const watcher of this.#watchers) watcher.resourceUpdated(uri) }
    return this.#updates === undefined ? Effect.void : Effect.asVoid(PubSub.publish(this.#updates, uri))
  }

  /**
   * Calls the watcher, synchronously, on every list change and resource update until the scope closes. A
   * connection watches this way so that an idle one holds no fiber and no subscription.
   */
  watch(watcher: ChangeWatcher): Effect.Effect<void, never, Scope.Scope> {
    return Scoped.acquireSync(() => {
      ;(this.#watchers ??= new Set()).add(watcher)
    }, () => {
      this.#watchers?.delete(watcher)
    })
  }

  /** Counts a connection in `stats` until the scope closes. */
  track(connection: ConnectionCounts): Effect.Effect<void, never, Scope.Scope> {
    return Scoped.acquireSync(() => {
      ;(this.#connections ??= new Set()).add(connection)
    }, () => {
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
        live++
        inFlight += c.inFlight()
        pending += c.pending()
      }
    }
    return { connections: live, inFlight, pending }
  }

  /** The owner of a new handshake session's tasks in this server's store. */
  nextTaskOwner(): string {
    return `session:${++this.#sessions}`
  }
}
