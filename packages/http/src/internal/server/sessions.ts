/**
 * The handshake sessions of one endpoint: creating one (admitted under the session limits, its connection served in
 * a scope of its own), finding the one a request names (bound to the client that created it), recording activity,
 * ending one (a DELETE, the idle reaper, the session limits, or the server's shutdown), and reaping the idle ones.
 */
import { McpServer, Transport } from "@effect-mcp/core"
import { McpError, Revision } from "@effect-mcp/schema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type * as EventStore from "../../EventStore.js"
import type * as SessionDirectory from "../../SessionDirectory.js"
import * as Outbox from "../outbox.js"
import type { Admission } from "./admission.js"
import type { Incoming, Reply } from "./exchange.js"
import { forget } from "./relay.js"
import * as Replies from "./reply.js"
import type { Routing } from "./routing.js"
import { isIdle, randomId, type Session } from "./session.js"

/** The handshake sessions of an endpoint. */
export interface Sessions {
  /** A new session, or the refusal to answer when the session limits leave no room for it. */
  readonly create: (
    owner: string | undefined,
    client: string | undefined
  ) => Effect.Effect<Either.Either<Session, Reply>>
  /** The session a request names (`Mcp-Session-Id`), or the refusal to answer. */
  readonly lookup: (request: Incoming, auth: Transport.AuthInfo | undefined) => Either.Either<Session, Reply>
  /** Records activity on a session (in the caller's call: it reads the clock of the endpoint's maker). */
  readonly touch: (s: Session) => void
  /** Ends a session: its connection, its streams and what the event store keeps of it. */
  readonly close: (s: Session) => Effect.Effect<void>
}

/** What the sessions of an endpoint are made with. */
export interface Deps {
  readonly server: McpServer.McpServerService
  /** The endpoint's scope: every session's scope is forked from it. */
  readonly rootScope: Scope.Scope
  readonly store: EventStore.EventStoreService | undefined
  readonly routing: Routing
  readonly admission: Admission
  readonly idleMs: number
  /** Where the sessions of the server's other processes are, when it has any: each session is claimed there. */
  readonly directory: SessionDirectory.SessionDirectoryService | undefined
}

const sessionIdRequired = Replies.error(400, McpError.serverError("Bad Request: Mcp-Session-Id header is required"))

/** The sessions of an endpoint, reaped when idle and ended with the current Scope. */
export const make = (deps: Deps): Effect.Effect<Sessions, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { admission, directory, idleMs, rootScope, routing, server, store } = deps
    const sessions = new Map<string, Session>()
    // Read once: touching a session (twice a POST) is then a plain call, no Effect of its own.
    const clock = yield* Effect.clock

    const touch = (s: Session) => {
      s.lastActivity = clock.unsafeCurrentTimeMillis()
      admission.limits.touch(s.slot)
    }

    const close = (s: Session) =>
      Effect.suspend(() => {
        if (s.closed) return Effect.void
        s.closed = true
        sessions.delete(s.id)
        admission.limits.remove(s.slot)
        return Effect.gen(function*() {
          s.incoming.end()
          yield* Scope.close(s.scope, Exit.void)
          for (const stream of [...s.streams.values()]) yield* routing.endStream(s, stream)
          yield* Outbox.evict(s.standalone)
          yield* forget(directory, s.id)
          if (store !== undefined) {
            yield* Effect.catchAll(
              store.forget(s.id),
              (error) => Effect.logWarning("effect-mcp: the event store could not forget a session", error)
            )
          }
        })
      })

    const create = (owner: string | undefined, client: string | undefined) =>
      Effect.gen(function*() {
        const id = randomId()
        const scope = yield* Scope.fork(rootScope, ExecutionStrategy.sequential)
        const incoming = yield* Transport.makeInbound
        const now = yield* Clock.currentTimeMillis
        const session: Session = {
          id,
          scope,
          incoming,
          standalone: Outbox.make("g", { sliding: 1024 }),
          streams: new Map(),
          routes: new Map(),
          cancelledEarly: new Set(),
          revision: undefined,
          initializeId: undefined,
          nextStream: 0,
          lastActivity: now,
          active: 0,
          closed: false,
          owner,
          slot: { client, idle: () => isIdle(session), close: Effect.suspend(() => close(session)) },
          counts: undefined
        }
        const description: Transport.Description = { networkTransport: "tcp", sessionId: id }
        const transport: Transport.TransportService = {
          receive: incoming.receive,
          listen: incoming.listen,
          send: (message, sendOptions) => routing.deliver(session, message, sendOptions?.relatedRequestId),
          describe: () => description
        }
        const refused = yield* admission.admit(session.slot)
        if (refused !== undefined) {
          yield* Scope.close(scope, Exit.void)
          return Either.left(refused)
        }
        if (directory !== undefined) {
          // A session the other processes cannot find would answer them 404: none is made while the directory is away.
          const claimed = yield* Effect.either(directory.claim(id))
          if (Either.isLeft(claimed)) {
            yield* Effect.logWarning("effect-mcp: the session directory is unavailable", claimed.left)
            admission.limits.remove(session.slot)
            yield* Scope.close(scope, Exit.void)
            return Either.left(Replies.directoryUnavailable)
          }
        }
        sessions.set(id, session)
        // Served in the session's scope with no fiber of its own; the session ends with `close` (a DELETE, the
        // idle reaper, the session limits, or the server's shutdown), which ends its inbound and closes its scope.
        const connection = yield* McpServer.connect.pipe(
          Effect.provideService(McpServer.McpServer, server),
          Effect.provideService(Transport.Transport, transport),
          Scope.extend(scope)
        )
        // The connection's counts tell the session limits whether it is idle.
        session.counts = connection.counts
        return Either.right(session)
      })

    const lookup = (request: Incoming, auth: Transport.AuthInfo | undefined): Either.Either<Session, Reply> => {
      const id = request.headers["mcp-session-id"]
      if (id === undefined) return Either.left(sessionIdRequired)
      const s = sessions.get(id)
      // A session is bound to the client that created it: to anyone else it does not exist.
      if (s === undefined || s.closed || (s.owner !== undefined && s.owner !== auth?.clientId)) {
        return Either.left(Replies.sessionNotFound())
      }
      // Any handshake revision is accepted on a session (the session's own revision governs what it sends), as the
      // official conformance suite and SDKs expect; an unknown value, or the stateless revision, is refused.
      const version = request.headers["mcp-protocol-version"]
      if (version !== undefined && (!Revision.isRevision(version) || Revision.isStateless(version))) {
        return Either.left(
          Replies.error(
            400,
            McpError.serverError(`Bad Request: unsupported MCP-Protocol-Version ${version} for this session`)
          )
        )
      }
      return Either.right(s)
    }

    // Idle sessions are reaped; a session with a request or a stream in flight is never idle.
    const tickMs = Math.min(Math.max(Math.floor(idleMs / 4), 10), 5_000)
    yield* Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const s of [...sessions.values()]) {
        if (s.active > 0 || Outbox.isAttached(s.standalone)) s.lastActivity = now
        else if (now - s.lastActivity > idleMs) yield* close(s)
      }
    }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(tickMs))), Effect.forkScoped)
    yield* Effect.addFinalizer(() => Effect.forEach([...sessions.values()], close, { discard: true }))

    return { create, lookup, touch, close }
  })
