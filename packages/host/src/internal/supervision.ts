/**
 * The host's supervision: one fiber per server (in a FiberMap keyed by its name) waits until the server is wanted,
 * connects it, and after each connection's end waits out the restart schedule (started over once a connection has been
 * up) or, when the schedule ends, gives up until a restart is asked for. Each step is a ServerState and a HostEvent;
 * the host's end interrupts every fiber, then marks every server Stopped.
 */
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { HostEvent } from "../HostEvent.js"
import type * as McpHost from "../McpHost.js"
import type * as Catalogue from "./catalogue.js"
import type * as Connection from "./connection.js"
import * as Restart from "./restart.js"
import { type Entry, isLazy, noLists, type Servers, ServerState } from "./servers.js"

/** Keeps one server connected: connects it, and again after each end, as the restart schedule says. */
const supervise = (
  entry: Entry,
  connect: Connection.Connect,
  schedule: Schedule.Schedule<unknown, string>,
  publish: Catalogue.Publish
) =>
  Effect.gen(function*() {
    yield* entry.wanted.await
    let driver = yield* Restart.driver(schedule)
    let attempt = 1
    for (;;) {
      const ended = yield* connect(entry, attempt)
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

/**
 * Supervises every server until the scope closes, and returns once every eager server has connected or failed its
 * first attempt.
 */
export const start = (
  servers: Servers,
  connect: Connection.Connect,
  options: McpHost.Options,
  publish: Catalogue.Publish
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const schedule = options.restart ?? Restart.defaultSchedule
    yield* Effect.addFinalizer(() =>
      Effect.forEach(servers.values(), (entry) =>
        SubscriptionRef.set(entry.state, ServerState.Stopped()).pipe(
          Effect.zipRight(publish(HostEvent.ServerStopped({ server: entry.name })))
        ), { discard: true }).pipe(Effect.zipRight(publish(HostEvent.HostStopped({}))))
    )
    // Made after the finalizer above, so that the fibers are interrupted before the servers are marked Stopped.
    const fibers = yield* FiberMap.make<string>()
    for (const entry of servers.values()) {
      yield* FiberMap.run(
        fibers,
        entry.name,
        Effect.annotateLogs(supervise(entry, connect, schedule, publish), "server", entry.name)
      )
    }
    // Host start: every eager server has connected, or failed its first attempt, before the host is handed out.
    yield* Effect.forEach(
      [...servers.values()].filter((e) => !isLazy(options, e.name)),
      (entry) =>
        entry.state.changes.pipe(
          Stream.filter((s) => s._tag !== "Starting"),
          Stream.runHead
        ),
      { concurrency: "unbounded", discard: true }
    )
  })

/** Drops a server's connection and connects it again now (also after the schedule gave up, or before first use). */
export const restart = (entry: Entry): Effect.Effect<void> =>
  Effect.zipRight(entry.wanted.open, Effect.asVoid(Queue.offer(entry.kick, undefined)))

/** Every server's state, for people and tests. */
export const statuses = (servers: Servers): Effect.Effect<ReadonlyArray<McpHost.ServerStatus>> =>
  Effect.forEach(
    [...servers.values()],
    (entry) =>
      Effect.map(SubscriptionRef.get(entry.state), (state): McpHost.ServerStatus => ({
        server: entry.name,
        state: state._tag,
        revision: state._tag === "Up" ? state.client.revision : undefined,
        pid: state._tag === "Up" ? state.pid : undefined,
        reason: state._tag === "Restarting" || state._tag === "GaveUp" ? state.reason : undefined
      }))
  )
