/**
 * The deprecated HTTP+SSE transport (2024-11-05), tried when the first POST is refused with 400, 404 or 405 and no
 * MCP error: a GET opens the SSE stream whose `endpoint` event names where to POST; every answer then comes on that
 * stream, and the transport ends with it.
 */
import { Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberMap from "effect/FiberMap"
import * as Stream from "effect/Stream"
import * as ClientFailure from "../clientFailure.js"
import * as Answer from "./answer.js"
import * as Inbound from "./inbound.js"
import * as Outgoing from "./outgoing.js"
import type { ClientState } from "./state.js"

/** Opens the legacy SSE stream at the URL; true once its `endpoint` event names where to POST. */
export const open = (client: ClientState): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const url = client.url
    const headers = yield* Outgoing.headersFor(client, undefined, false)
    const response = yield* Effect.either(
      Outgoing.execute(client, { method: "GET", url, headers: { ...headers, accept: "text/event-stream" } })
    )
    if (Either.isLeft(response) || response.right.status !== 200) return false
    if (!(response.right.headers["content-type"] ?? "").includes("text/event-stream")) return false
    const named = yield* Deferred.make<string>()
    yield* FiberMap.run(
      client.exchanges,
      "effect-mcp-legacy-stream",
      Answer.sseEvents(response.right.stream, client.maxMessageBytes).pipe(
        Stream.runForEach((chunk) => {
          if (chunk._tag === "Retry") return Effect.void
          if (chunk.event.event === "endpoint") {
            return Deferred.succeed(named, new URL(chunk.event.data.trim(), url).toString())
          }
          return chunk.event.data === "" ? Effect.void : Inbound.receiveText(client, chunk.event.data)
        }),
        Effect.ignore,
        // The legacy stream is the connection: when it ends, so does the transport.
        Effect.ensuring(Effect.sync(client.incoming.end))
      )
    )
    const endpoint = yield* Deferred.await(named).pipe(Effect.timeout(Duration.seconds(10)), Effect.option)
    if (endpoint._tag === "None") return false
    client.legacyEndpoint = endpoint.value
    client.mode = "legacy"
    yield* Effect.logDebug(
      `effect-mcp: ${url} speaks the deprecated HTTP+SSE transport; posting to ${client.legacyEndpoint}`
    )
    return true
  })

/** POSTs a message to the endpoint the stream named. */
const post = (client: ClientState, message: unknown) =>
  Effect.flatMap(
    Outgoing.headersFor(client, message, false),
    (headers) =>
      Outgoing.execute(client, {
        method: "POST",
        url: client.legacyEndpoint,
        headers,
        body: JSON.stringify(message)
      })
  )

/** Sends over the legacy transport (request `id`, if it is one): the answer comes on the stream. */
export const send = (
  client: ClientState,
  message: unknown,
  id: JsonRpc.RequestId | undefined
): Effect.Effect<void, Transport.TransportError> =>
  Effect.gen(function*() {
    const response = yield* Effect.either(post(client, message))
    if (Either.isLeft(response)) {
      const reason = `the request could not be sent: ${response.left.reason}`
      if (id !== undefined) return yield* Inbound.lost(client, id, reason, response.left.cause)
      return yield* new Transport.TransportError({ reason, cause: response.left.cause })
    }
    const status = response.right.status
    if (status >= 200 && status < 300) {
      return
    }
    const text = yield* Answer.errorText(client, response.right)
    if (id !== undefined) return yield* Inbound.errorAnswer(client, id, response.right, text, undefined)
    return yield* new Transport.TransportError({
      reason: `the server answered HTTP ${status}: ${ClientFailure.preview(text)}`,
      status
    })
  })
