/**
 * The client's handshake session: renewed when the server forgets it (404) by repeating the first `initialize` under a
 * new session (one renewal at a time, shared by every request that met the 404; the standalone stream follows it), and
 * ended with DELETE when the transport closes.
 */
import { Transport } from "@effect-mcp/core"
import { Json } from "@effect-mcp/schema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as ClientFailure from "../clientFailure.js"
import * as Answer from "./answer.js"
import * as GetStream from "./getStream.js"
import * as Outgoing from "./outgoing.js"
import * as State from "./state.js"

/** Runs the handshake again with the parameters of the first one, under a new session. */
export const reinitialize = (client: State.ClientState, stale: string): Effect.Effect<void, Transport.SessionExpired> =>
  Effect.gen(function*() {
    // A renewal under way (the session is unset meanwhile) is waited for, whoever started it.
    if (client.reinitializing !== undefined) return yield* client.reinitializing
    if (client.sessionId !== stale) return
    const id = `effect-mcp-reinitialize-${client.nextInternalId++}`
    const run = Effect.gen(function*() {
      const init = client.initialize
      if (init === undefined) {
        return yield* new Transport.SessionExpired({ sessionId: stale, reason: "no handshake to repeat" })
      }
      let result: Record<string, unknown> | undefined
      client.internal.set(id, (m) => void (result = m))
      client.sessionId = undefined
      const response = yield* Outgoing.post(client, { ...init, id }, false)
      const fresh = response.headers["mcp-session-id"]
      if (response.status !== 200) {
        const text = yield* Answer.errorText(client, response)
        return yield* new Transport.SessionExpired({
          sessionId: stale,
          reason: `the server refused to initialize again (HTTP ${response.status}: ${ClientFailure.preview(text)})`
        })
      }
      yield* Answer.read(client, response, State.cursor())
      const ok = result !== undefined && "result" in result &&
        Json.record(result.result).protocolVersion === client.protocolVersion
      if (!ok) {
        return yield* new Transport.SessionExpired({
          sessionId: stale,
          reason: "the server refused to initialize again"
        })
      }
      client.sessionId = fresh
      const ack = yield* Outgoing.post(client, { jsonrpc: "2.0", method: "notifications/initialized" })
      if (ack.status >= 300) {
        return yield* new Transport.SessionExpired({
          sessionId: stale,
          reason: `notifications/initialized got ${ack.status}`
        })
      }
      yield* Effect.logDebug(`effect-mcp: session ${stale} expired; continued as ${fresh ?? "(no session)"}`)
      if (client.listening) yield* startListening(client)
    }).pipe(
      Effect.catchTag(
        "Failed",
        (e) => new Transport.SessionExpired({ sessionId: stale, reason: e.reason, cause: e.cause })
      ),
      // Still the stale session: the next request that meets its 404 tries to renew it again.
      Effect.tapError(() => Effect.sync(() => void (client.sessionId ??= stale))),
      Effect.ensuring(Effect.sync(() => {
        client.reinitializing = undefined
        client.internal.delete(id)
      }))
    )
    const cached = yield* Effect.cached(run)
    client.reinitializing = cached
    return yield* cached
  })

/** Opens the standalone GET stream (once), renewing the session when the stream meets its 404. */
export const startListening = (client: State.ClientState): Effect.Effect<void> =>
  GetStream.start(client, (stale) => reinitialize(client, stale))

/** Stops every exchange and stream, and ends the session with DELETE (unless legacy or `terminateOnClose: false`). */
export const terminate = (client: State.ClientState): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* FiberMap.clear(client.exchanges)
    if (client.sessionId === undefined || client.mode === "legacy" || client.options.terminateOnClose === false) return
    const headers = yield* Outgoing.headersFor(client, undefined, true)
    yield* Outgoing.execute(client, { method: "DELETE", url: client.url, headers }).pipe(
      Effect.flatMap((response) => response.text),
      Effect.timeout(Duration.seconds(2)),
      Effect.ignore
    )
  })
