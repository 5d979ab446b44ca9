/**
 * The client transport's `send`: a request becomes its exchange's fiber, keyed by its id (interrupting it cancels the
 * request); a cancellation stops that fiber (under 2026-07-28 closing the answer stream is the cancellation itself);
 * any other notification or response is POSTed, once more after renewing a session the server forgot, and the
 * handshake's `notifications/initialized` opens the standalone GET stream.
 */
import { Transport } from "@effect-mcp/core"
import { Json, JsonRpc } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as ClientFailure from "../clientFailure.js"
import * as Answer from "./answer.js"
import * as Exchange from "./exchange.js"
import * as Legacy from "./legacy.js"
import * as Outgoing from "./outgoing.js"
import * as Session from "./session.js"
import * as State from "./state.js"

/** Sends one outgoing message (or batch) of the engine. */
export const send = (
  client: State.ClientState,
  message: Transport.Outgoing
): Effect.Effect<void, Transport.TransportError> =>
  Effect.gen(function*() {
    if (!Array.isArray(message) && JsonRpc.looksLikeRequest(message)) {
      const request = message as JsonRpc.Request
      const rev = Outgoing.statelessRevision(request)
      if (rev !== undefined) client.stateless.set(request.id, request.method)
      if (request.method === "initialize") client.initialize = request
      client.answered.delete(request.id)
      const fiber = yield* FiberMap.run(client.exchanges, request.id, Exchange.exchange(client, request, rev))
      fiber.addObserver(Exchange.forget(client, request.id))
      return
    }
    const m = Json.record(message)
    if (m.method === "notifications/cancelled") {
      const id = Json.record(m.params).requestId
      if (JsonRpc.isRequestId(id) && client.stateless.has(id)) {
        // Under 2026-07-28 closing the response stream is the cancellation.
        return yield* FiberMap.remove(client.exchanges, id)
      }
      // A cancelled request gets no response: stop waiting for (and resuming) its stream.
      if (JsonRpc.isRequestId(id)) yield* FiberMap.remove(client.exchanges, id)
    }
    if (client.mode === "legacy") return yield* Legacy.send(client, message, undefined)
    if (client.protocolVersion === undefined && client.sessionId === undefined && client.stateless.size > 0) return
    const stale = client.sessionId
    const post = Effect.mapError(
      Outgoing.post(client, message),
      (e) => new Transport.TransportError({ reason: `the message could not be sent: ${e.reason}`, cause: e.cause })
    )
    let response = yield* post
    if (response.status === 404 && stale !== undefined) {
      yield* Session.reinitialize(client, stale).pipe(
        Effect.mapError((e) => new Transport.TransportError({ reason: e.message, cause: e }))
      )
      response = yield* post
    }
    if (response.status < 200 || response.status >= 300) {
      const text = yield* Answer.errorText(client, response)
      const meaning = ClientFailure.classify({ status: response.status, headers: response.headers, text }, stale)
      const failure = meaning._tag === "Failure" ? meaning.failure : undefined
      return yield* new Transport.TransportError({
        reason: failure?.message ?? `the server answered HTTP ${response.status}: ${ClientFailure.preview(text)}`,
        status: response.status,
        ...(failure === undefined || failure._tag === "TransportError" ? {} : { cause: failure })
      })
    }
    // A JSON answer to a batch of responses/notifications carries nothing; an SSE one may.
    yield* Effect.ignore(Answer.read(client, response, State.cursor()))
    if (m.method === "notifications/initialized" && (client.options.standaloneStream ?? true) && !client.listening) {
      yield* Session.startListening(client)
    }
  })
