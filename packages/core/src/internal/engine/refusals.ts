/**
 * Frames the engine refuses: one nested too deep (its verdict from `frameLimits`) and one that is no JSON-RPC message.
 * A request among them is answered with an error, a response fails the request of ours it answers at once (instead of
 * leaving it to its timeout), and a notification is dropped.
 */
import { JsonRpc, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Transport from "../../Transport.js"
import * as FrameLimits from "../frameLimits.js"
import * as FastPath from "./fastPath.js"
import * as Outgoing from "./outgoing.js"
import { sendQuietly } from "./send.js"
import type { ConnectionState } from "./state.js"

/** Acts on the verdict on a frame nested too deep; returns the error response to send, if any. */
export const refused = <E>(
  state: ConnectionState<E>,
  refusal: FrameLimits.Refusal
): JsonRpc.ErrorResponse | undefined => {
  switch (refusal._tag) {
    case "Answer":
      return refusal.response
    case "FailRequest":
      Outgoing.settleId(
        state,
        refusal.id,
        () => Effect.fail(new Transport.TransportError({ reason: `the response was refused: ${refusal.reason}` })),
        `request id (the response was ${refusal.reason})`
      )
      return undefined
    case "Drop":
      FastPath.runInBackground(state, Effect.logDebug(`effect-mcp: dropped a notification ${refusal.reason}`))
      return undefined
  }
}

/** A frame that is no JSON-RPC message: a request gets -32600; a response fails the request it answers, at once. */
export const invalid = <E>(state: ConnectionState<E>, u: unknown, reason: string): void => {
  if (!JsonRpc.looksLikeResponse(u)) {
    FastPath.runInBackground(
      state,
      sendQuietly(
        state,
        JsonRpc.failure(JsonRpc.salvageId(u), { code: McpError.codes.InvalidRequest, message: reason })
      )
    )
    return
  }
  Outgoing.settleId(
    state,
    JsonRpc.salvageId(u),
    () => Effect.fail(new Transport.TransportError({ reason: `the response was invalid: ${reason}` })),
    `request id (an invalid response: ${reason})`
  )
}
