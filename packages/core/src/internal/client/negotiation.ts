/**
 * Negotiation: which revision a connection speaks. `server/discover` first (the stateless 2026-07-28 revision, within
 * a short probe timeout), `initialize` as the fallback; or as pinned, or as the NegotiationMemory remembers the
 * server. A server that ignored the probe and then refuses `initialize` is probed again, with no short bound.
 */
import { Codec, Json, type Mcp, McpError, Revision } from "@effect-mcp/schema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { HandshakeFailed } from "../../Errors.js"
import type { Options } from "../../McpClient.js"
import type * as Engine from "../engine.js"
import { type Era, NegotiationMemory } from "./negotiationMemory.js"
import { metaKeys, type MetaSource, statelessMeta } from "./statelessMeta.js"

/** What negotiation found. */
export interface Negotiated {
  readonly revision: Revision.Revision
  readonly stateless: boolean
  readonly serverInfo: Mcp.Implementation
  readonly serverCapabilities: Mcp.ServerCapabilities
  readonly instructions: string | undefined
}

/** What negotiation needs of the client: its engine, options and self-description, and where to record the outcome. */
export interface NegotiatingClient extends MetaSource {
  readonly engine: Engine.Engine
  readonly options: Options
  /** The revision the client speaks now (set to the offered one while `initialize` is in flight). */
  revision: Revision.Revision
  /** Records what negotiation found. */
  readonly connected: (found: Negotiated) => void
}

/** What a `server/discover` probe found. */
type Probed = "stateless" | "unanswered" | "refused"

/** The default bound of the `server/discover` probe. */
const defaultProbeTimeout = Duration.seconds(5)

/** The bound of the `server/discover` probe: the probe timeout, never longer than the request timeout. */
const probeBound = (options: Options): Duration.Duration => {
  const bound = Duration.decode(options.probeTimeout ?? defaultProbeTimeout)
  return options.requestTimeout === undefined ? bound : Duration.min(bound, Duration.decode(options.requestTimeout))
}

/** A failure's message, or its reason, for a HandshakeFailed reason. */
const describe = (cause: unknown): string =>
  Json.isRecord(cause) && typeof cause.message === "string" && cause.message !== ""
    ? cause.message
    : Json.isRecord(cause) && typeof cause.reason === "string"
    ? cause.reason
    : String(cause)

/**
 * Probes with `server/discover`: `"stateless"` (and the client connected) when the server speaks 2026-07-28,
 * `"unanswered"` when no answer came within `bound` (the probe is then cancelled on the wire), else `"refused"`.
 */
const probe = (
  client: NegotiatingClient,
  remember: (era: Era) => Effect.Effect<void>,
  bound?: Duration.Duration
): Effect.Effect<Probed, HandshakeFailed> =>
  Effect.gen(function*() {
    const discover = client.engine.request("server/discover", {
      _meta: statelessMeta(client, Revision.stateless)
    }).pipe(
      Effect.map((r) => Codec.decodeResult("server/discover", Revision.stateless, r)),
      Effect.map((r) => (Either.isRight(r) ? r.right : undefined)),
      // The server answered (a JSON-RPC error, or an HTTP error with no JSON-RPC body): it does not speak
      // 2026-07-28, so `initialize` follows. Refused credentials or a broken connection end the handshake at once.
      Effect.catchAll((e) =>
        McpError.isMcpError(e) || (e._tag === "TransportError" && e.status !== undefined)
          ? Effect.succeed(undefined)
          : Effect.fail(new HandshakeFailed({ reason: `server/discover failed: ${describe(e)}`, cause: e }))
      )
    )
    const answer = yield* (bound === undefined ? Effect.asSome(discover) : Effect.timeoutOption(discover, bound))
    if (Option.isNone(answer)) return "unanswered"
    const discovered = answer.value
    if (discovered === undefined || !discovered.supportedVersions.includes(Revision.stateless)) return "refused"
    yield* remember("stateless")
    client.connected({
      revision: Revision.stateless,
      stateless: true,
      serverInfo: (discovered._meta?.[metaKeys.serverInfo] as Mcp.Implementation | undefined) ??
        { name: "unknown", version: "unknown" },
      serverCapabilities: discovered.capabilities,
      instructions: discovered.instructions
    })
    return "stateless"
  })

/** The `initialize` handshake, offering the pinned revision or else the newest handshake revision. */
const greet = (
  client: NegotiatingClient,
  remember: (era: Era) => Effect.Effect<void>
): Effect.Effect<void, HandshakeFailed> =>
  Effect.gen(function*() {
    const pinned = client.options.revision
    const requested = pinned ?? Revision.latestHandshake
    // Encoded for the offered revision, so that capabilities it does not define (elicitation before
    // 2025-06-18, tasks before 2025-11-25) are not declared to a server that would then use them.
    const initParams = Codec.encodeParams("initialize", requested, {
      protocolVersion: requested,
      capabilities: client.capabilities,
      clientInfo: client.clientInfo
    })
    if (Either.isLeft(initParams)) {
      return yield* new HandshakeFailed({ reason: `invalid initialize params: ${Codec.describe(initParams.left)}` })
    }
    client.revision = requested
    const initResult = yield* client.engine.request("initialize", initParams.right as Record<string, unknown>).pipe(
      Effect.mapError((cause) => new HandshakeFailed({ reason: `initialize failed: ${describe(cause)}`, cause }))
    )
    const negotiated = initResult.protocolVersion
    if (!Revision.isRevision(negotiated) || Revision.isStateless(negotiated)) {
      return yield* new HandshakeFailed({ reason: `the server chose an unsupported revision ${String(negotiated)}` })
    }
    if (pinned !== undefined && negotiated !== pinned) {
      return yield* new HandshakeFailed({
        reason: `the client is pinned to ${pinned} but the server answered ${negotiated}`
      })
    }
    client.revision = negotiated
    const init = Codec.decodeResult("initialize", negotiated, initResult)
    if (Either.isLeft(init)) {
      return yield* new HandshakeFailed({ reason: `invalid initialize result: ${Codec.describe(init.left)}` })
    }
    const initialized = init.right
    if (pinned === undefined) yield* remember("handshake")
    yield* client.engine.notify("notifications/initialized", undefined).pipe(
      Effect.mapError((cause) => new HandshakeFailed({ reason: "could not send notifications/initialized", cause }))
    )
    client.connected({
      revision: negotiated,
      stateless: false,
      serverInfo: initialized.serverInfo,
      serverCapabilities: initialized.capabilities,
      instructions: initialized.instructions
    })
  })

/** Negotiates: `server/discover` first, `initialize` as the fallback (or as pinned, or as remembered). */
export const negotiate = (client: NegotiatingClient): Effect.Effect<void, HandshakeFailed> =>
  Effect.gen(function*() {
    const options = client.options
    const memory = yield* NegotiationMemory
    const remembered = options.server === undefined || options.revision !== undefined
      ? Option.none<Era>()
      : yield* memory.get(options.server)
    const remember = (era: Era) => (options.server === undefined ? Effect.void : memory.set(options.server, era))
    if (options.revision !== undefined) {
      if (!Revision.isStateless(options.revision)) return yield* greet(client, remember)
      if ((yield* probe(client, remember)) === "stateless") return
      return yield* new HandshakeFailed({
        reason: "the client is pinned to 2026-07-28 but the server does not speak it"
      })
    }
    // Greets with `initialize`; should the server refuse it (it speaks 2026-07-28 only, and is alive: it answered),
    // probes with no short bound.
    const greetOrProbe = greet(client, remember).pipe(
      Effect.catchIf(
        (e) => McpError.isMcpError(e.cause) && e.cause._tag !== "RequestTimeout",
        (e) =>
          Effect.flatMap(
            probe(client, remember),
            (probed) => (probed === "stateless" ? Effect.void : Effect.fail(e))
          )
      )
    )
    // Remembered as handshake-only (it refused or ignored the probe before): greeted with `initialize` straight away.
    if (Option.getOrUndefined(remembered) === "handshake") return yield* greetOrProbe
    const probed = yield* probe(client, remember, probeBound(options))
    if (probed === "stateless") return
    // A server that ignored the probe (or answered it with another id) may just have been slow to start: should it
    // refuse `initialize`, it is probed again, with the request timeout.
    return yield* (probed === "unanswered" ? greetOrProbe : greet(client, remember))
  })
