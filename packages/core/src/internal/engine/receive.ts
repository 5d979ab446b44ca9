/**
 * Receiving one frame from the transport, in the transport's call: a malformed one, a batch, a frame nested too deep
 * or no JSON-RPC message is answered or refused here; a message goes to dispatch (`incoming`). Nothing thrown while a
 * frame is read reaches the transport: a defect is that frame's -32603 (when it is a request with a readable id),
 * never the connection's end.
 */
import { Codec, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Transport from "../../Transport.js"
import * as FrameLimits from "../frameLimits.js"
import { handleBatch } from "./batch.js"
import * as FastPath from "./fastPath.js"
import * as Incoming from "./incoming.js"
import * as Outgoing from "./outgoing.js"
import { invalid, refused } from "./refusals.js"
import { internalError, sendQuietly } from "./send.js"
import type { ConnectionState } from "./state.js"

/** Hands one frame from the transport to the engine; a defect while reading it is logged and answered. */
export const deliver = <E>(state: ConnectionState<E>, incoming: Transport.Incoming): void => {
  if (state.hasClosed) return
  try {
    receive(state, incoming)
  } catch (defect) {
    receiveFailed(state, incoming, defect)
  }
}

/** Logs a frame whose reading died, and answers it with -32603 when it is a request with a readable id. */
const receiveFailed = <E>(state: ConnectionState<E>, incoming: Transport.Incoming, defect: unknown): void => {
  const u = incoming._tag === "Malformed" ? undefined : incoming.message
  const id = Array.isArray(u) || JsonRpc.looksLikeResponse(u) ? null : JsonRpc.salvageId(u)
  FastPath.runInBackground(
    state,
    Effect.zipRight(
      Effect.logError("effect-mcp: a frame could not be handled", Cause.die(defect)),
      id === null ? Effect.void : sendQuietly(state, JsonRpc.failure(id, internalError))
    )
  )
}

/** Answers (an error response, sent from a fiber of its own) a frame that is refused whole. */
const refuse = <E>(state: ConnectionState<E>, response: Transport.Outgoing): void => {
  FastPath.runInBackground(state, sendQuietly(state, response))
}

const receive = <E>(state: ConnectionState<E>, incoming: Transport.Incoming): void => {
  if (incoming._tag === "Malformed") {
    // A response too large to parse, or one the transport could not get: its request fails now, with what the
    // transport saw (responses are never answered).
    if (incoming.responseTo !== undefined) {
      return Outgoing.settleId(
        state,
        incoming.responseTo,
        () =>
          Effect.fail(
            incoming.failure ??
              new Transport.TransportError({ reason: `the response was dropped: ${incoming.reason}` })
          ),
        `request id (${incoming.reason})`
      )
    }
    return refuse(
      state,
      JsonRpc.failure(null, { code: McpError.codes.ParseError, message: `Parse error: ${incoming.reason}` })
    )
  }
  const u = incoming.message
  if (Array.isArray(u)) {
    if (u.length === 0) {
      return refuse(
        state,
        JsonRpc.failure(null, { code: McpError.codes.InvalidRequest, message: "Invalid request: empty batch" })
      )
    }
    const tooLong = FrameLimits.checkBatch(u, state.maxBatchSize)
    if (tooLong !== undefined) return refuse(state, tooLong)
    if (!state.handlers.acceptsBatch()) {
      return refuse(
        state,
        JsonRpc.failure(null, {
          code: McpError.codes.InvalidRequest,
          message: "Invalid request: JSON-RPC batches are only accepted from revision 2025-03-26 peers"
        })
      )
    }
    FastPath.runInBackground(state, handleBatch(state, u, incoming))
    return
  }
  const tooDeep = FrameLimits.checkDepth(u, state.maxDepth)
  if (tooDeep !== undefined) {
    const refusal = refused(state, tooDeep)
    return refusal === undefined ? undefined : refuse(state, refusal)
  }
  const decoded = JsonRpc.decodeMessage(u)
  return Either.isLeft(decoded)
    ? invalid(state, u, `Invalid request: ${Codec.describe(decoded.left)}`)
    : Incoming.handleMessage(state, decoded.right, incoming)
}
