/**
 * What the engine sends of its own accord: answers to incoming requests, cancellations of our requests, and error
 * responses to frames it refuses. None of it fails the connection: a send that fails is logged.
 */
import { JsonRpc, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import type * as Transport from "../../Transport.js"
import type { ConnectionState } from "./state.js"
import * as Telemetry from "./telemetry.js"

/** The error object of a request whose handler died or whose answer could not be sent. */
export const internalError: JsonRpc.ErrorObject = { code: McpError.codes.InternalError, message: "Internal error" }

/** Sends a message; a failure to send is logged (at debug level), not raised. */
export const sendQuietly = <E>(
  state: ConnectionState<E>,
  message: Transport.Outgoing,
  sendOptions?: Transport.SendOptions
): Effect.Effect<void> =>
  state.transport.send(message, sendOptions).pipe(
    Effect.catchAll((e) => Effect.logDebug("effect-mcp: could not send a message", e.reason))
  )

/**
 * Sends the answer to request `id`. One the transport cannot send while the connection lives (a result that does
 * not encode as JSON, such as a value nested too deep for `JSON.stringify`) is replaced by -32603, so that the
 * request still gets exactly one answer.
 */
export const sendAnswer = <E>(
  state: ConnectionState<E>,
  id: JsonRpc.RequestId,
  response: JsonRpc.Message
): Effect.Effect<void> => {
  const sendOptions = { relatedRequestId: id }
  return state.transport.send(response, sendOptions).pipe(
    Effect.catchAll((e) =>
      state.hasClosed
        ? Effect.logDebug("effect-mcp: could not send an answer", e.reason)
        : Effect.zipRight(
          Effect.logWarning(`effect-mcp: the answer to a request could not be sent, -32603 instead: ${e.reason}`),
          sendQuietly(state, JsonRpc.failure(id, internalError), sendOptions)
        )
    )
  )
}

/** Tells the peer that our request `id` is cancelled (nothing once the connection has ended). */
export const sendCancel = <E>(
  state: ConnectionState<E>,
  id: JsonRpc.RequestId,
  reason: string,
  relatedRequestId: JsonRpc.RequestId | undefined
): Effect.Effect<void> =>
  state.hasClosed
    ? Effect.void
    : state.traced
    ? Telemetry.outgoingNotification(
      state,
      "notifications/cancelled",
      { requestId: id, reason },
      (params) => sendQuietly(state, JsonRpc.notification("notifications/cancelled", params), related(relatedRequestId))
    )
    : sendQuietly(
      state,
      JsonRpc.notification("notifications/cancelled", { requestId: id, reason }),
      related(relatedRequestId)
    )

const related = (relatedRequestId: JsonRpc.RequestId | undefined): Transport.SendOptions | undefined =>
  relatedRequestId === undefined ? undefined : { relatedRequestId }
