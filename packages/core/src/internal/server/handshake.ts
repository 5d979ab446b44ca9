/**
 * The handshake eras (2024-11-05 to 2025-11-25): `initialize` negotiates the connection's revision and stores the
 * client's capabilities, `notifications/initialized` opens the way for server→client requests, and every later
 * request is answered under the negotiated revision with the client the handshake described.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as RequestContext from "../../RequestContext.js"
import type * as Transport from "../../Transport.js"
import type { AskedMethod, Peer } from "../requestContextImpl.js"
import { startPushes } from "./changes.js"
import { admit, type Admitted, contextOf, encodeResult, metaOf, type Reply } from "./dispatch.js"
import { invalidParams } from "./meta.js"
import type { ChangeWatcher, McpServerService } from "./service.js"
import type { SessionState } from "./state.js"

/** The timeout of server→client requests (and of the wait for `notifications/initialized`). */
const requestTimeout = (server: McpServerService): Duration.DurationInput =>
  server.options.requestTimeout ?? Duration.seconds(60)

/** Answers `initialize`: negotiates the revision (the client's, else the latest handshake one) and starts pushes. */
export const initialize = (session: SessionState & ChangeWatcher, request: JsonRpc.Request): Reply =>
  Effect.gen(function*() {
    if (session.revision !== undefined) return yield* new McpError.InvalidRequest({ message: "Already initialized" })
    const decoded = Codec.decodeAs("domain", "InitializeRequestParams", request.params)
    if (Either.isLeft(decoded)) {
      return yield* invalidParams(`Invalid params for initialize: ${Codec.describe(decoded.left)}`)
    }
    const params = decoded.right
    const requested = params.protocolVersion
    const rev = Revision.isRevision(requested) && !Revision.isStateless(requested)
      ? requested
      : Revision.latestHandshake
    const strict = Codec.decodeParams("initialize", rev, request.params)
    if (Either.isLeft(strict)) {
      return yield* invalidParams(`Invalid params for initialize: ${Codec.describe(strict.left)}`)
    }
    session.revision = rev
    session.clientInfo = params.clientInfo
    session.clientCapabilities = params.capabilities
    session.serverCapabilities = session.server.capabilities()
    const instructions = session.server.options.instructions
    const result: Mcp.InitializeResult = {
      protocolVersion: rev,
      capabilities: session.serverCapabilities,
      serverInfo: session.server.info,
      ...(instructions === undefined ? {} : { instructions })
    }
    const out = yield* encodeResult("initialize", rev, result)
    if (!session.ready) startPushes(session)
    session.ready = true
    return out
  })

/** Runs an admitted request under the negotiated revision. */
const run: Admitted = (session, request, frame, rev, handler, params) => {
  const ctx = contextOf(session, request, frame, rev, metaOf(params), session.peer)
  return Effect.flatMap(handler(session, params, ctx), (result) => encodeResult(request.method, rev, result))
}

/** Answers a request of a handshake session other than `initialize` (before it, only `ping` is answered). */
export const dispatch = (session: SessionState, request: JsonRpc.Request, frame: Transport.Frame): Reply => {
  const rev = session.revision
  if (rev === undefined) {
    return request.method === "ping"
      ? Effect.succeed({})
      : Effect.fail(
        new McpError.InvalidRequest({ message: `Not initialized: send initialize before ${request.method}` })
      )
  }
  return admit(session, request, frame, rev, session.serverCapabilities, run)
}

/** Handles `notifications/initialized`: server→client requests waiting for it go out. */
export const initialized = (session: SessionState): Effect.Effect<void> =>
  Effect.suspend(() => {
    session.initialized = true
    const waiting = session.whenInitialized
    return waiting === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(waiting, undefined))
  })

/** The Deferred that `notifications/initialized` completes, made for the first request that waits for it. */
const whenInitialized = (session: SessionState): Effect.Effect<Deferred.Deferred<void>> =>
  session.whenInitialized !== undefined
    ? Effect.succeed(session.whenInitialized)
    : Effect.map(Deferred.make<void>(), (made) => (session.whenInitialized ??= made))

/** Waits, up to the request timeout, for `notifications/initialized`. */
const awaitInitialized = (session: SessionState): Effect.Effect<void, McpError.McpError> => {
  if (session.initialized) return Effect.void
  // Checked again once the Deferred is in place: `notifications/initialized` may have come while it was made.
  const initialized = Effect.flatMap(
    whenInitialized(session),
    (made) => session.initialized ? Effect.void : Deferred.await(made)
  )
  return Effect.timeoutFail(initialized, {
    duration: requestTimeout(session.server),
    onTimeout: () => new McpError.RequestTimeout({ message: "The client never sent notifications/initialized" })
  })
}

/** Sends a server→client request related to request `related`, once the client has said it is initialized. */
const clientRequest = <M extends AskedMethod>(
  session: SessionState,
  method: M,
  rev: Revision.Revision,
  params: Method.ServerRequests[M]["params"],
  related: JsonRpc.RequestId,
  required: Record<string, unknown>,
  satisfied: boolean
): Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError> =>
  Effect.gen(function*() {
    if (!satisfied || Method.shape(method, rev) === undefined) {
      return yield* new McpError.MissingRequiredClientCapability({
        message: `${method} needs a client capability the client did not declare (or revision ${rev} lacks it)`,
        requiredCapabilities: required
      })
    }
    yield* awaitInitialized(session)
    const encoded = Codec.encodeParams(method, rev, params)
    if (Either.isLeft(encoded)) {
      return yield* invalidParams(`Invalid ${method} params for ${rev}: ${Codec.describe(encoded.left)}`)
    }
    const timeout = requestTimeout(session.server)
    const result = yield* session.engine.request(method, encoded.right as Record<string, unknown> | undefined, {
      relatedRequestId: related,
      timeout
    }).pipe(
      Effect.catchTags({
        ConnectionClosed: (e) => Effect.fail(new McpError.InternalError({ message: `Connection closed: ${e.reason}` })),
        TransportError: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
        // A server's transport fails no request with these (they are an HTTP client's), but the engine's type has them.
        Unauthorized: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
        Forbidden: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.reason}` })),
        SessionExpired: (e) => Effect.fail(new McpError.InternalError({ message: `Transport failed: ${e.message}` }))
      })
    )
    const decoded = Codec.decodeResult(method, rev, result)
    if (Either.isLeft(decoded)) {
      return yield* new McpError.InternalError({
        message: `The client's ${method} result is invalid: ${Codec.describe(decoded.left)}`
      })
    }
    return decoded.right
  })

/** The client of a handshake session, as every request's context sees it. */
export class HandshakePeer implements Peer {
  constructor(private readonly session: SessionState) {}
  get capabilities(): Mcp.ClientCapabilities {
    return this.session.clientCapabilities
  }
  get clientInfo(): Mcp.Implementation | undefined {
    return this.session.clientInfo
  }
  logLevel(): RequestContext.LoggingLevel | undefined {
    return this.session.logLevel
  }
  ask<M extends AskedMethod>(
    method: M,
    params: Method.ServerRequests[M]["params"],
    required: Record<string, unknown>,
    satisfied: boolean,
    rev: Revision.Revision,
    id: JsonRpc.RequestId
  ): Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError> {
    return clientRequest(this.session, method, rev, params, id, required, satisfied)
  }
}
