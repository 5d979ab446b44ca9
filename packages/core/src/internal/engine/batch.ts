/**
 * A JSON-RPC batch (accepted from revision 2025-03-26 peers): each message is checked and handled as a single one
 * would be, and the answers to its requests go back together, as one batch, once every request has its answer (an
 * interrupted request has none).
 */
import { Codec, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import type * as Transport from "../../Transport.js"
import * as FrameLimits from "../frameLimits.js"
import * as FastPath from "./fastPath.js"
import * as Incoming from "./incoming.js"
import { refused } from "./refusals.js"
import { sendQuietly } from "./send.js"
import type { ConnectionState } from "./state.js"

/** Handles the messages of one batch and sends the answers of its requests as one batch. */
export const handleBatch = <E>(
  state: ConnectionState<E>,
  items: ReadonlyArray<unknown>,
  frame: Transport.Frame
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const slots: Array<Deferred.Deferred<Option.Option<JsonRpc.Message>>> = []
    for (const item of items) {
      const tooDeep = FrameLimits.checkDepth(item, state.maxDepth)
      if (tooDeep !== undefined) {
        const refusal = refused(state, tooDeep)
        if (refusal !== undefined) {
          const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
          yield* Deferred.succeed(slot, Option.some<JsonRpc.Message>(refusal))
          slots.push(slot)
        }
        continue
      }
      const decoded = JsonRpc.decodeMessage(item)
      if (Either.isLeft(decoded)) {
        if (!JsonRpc.looksLikeResponse(item)) {
          const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
          yield* Deferred.succeed(
            slot,
            Option.some(JsonRpc.failure(JsonRpc.salvageId(item), {
              code: McpError.codes.InvalidRequest,
              message: `Invalid request: ${Codec.describe(decoded.left)}`
            }))
          )
          slots.push(slot)
        }
        continue
      }
      const message = decoded.right
      if (!JsonRpc.isRequest(message)) {
        Incoming.handleMessage(state, message, frame)
        continue
      }
      const slot = yield* Deferred.make<Option.Option<JsonRpc.Message>>()
      slots.push(slot)
      if (FastPath.isInFlight(state, message.id)) {
        yield* Deferred.succeed(
          slot,
          Option.some(JsonRpc.failure(message.id, {
            code: McpError.codes.InvalidRequest,
            message: `Request id ${JSON.stringify(message.id)} is already in use`
          }))
        )
        continue
      }
      yield* FiberMap.run(
        FastPath.inflightMap(state),
        message.id,
        Incoming.bounded(
          state,
          Incoming.answer(state, message, frame, (response) => Deferred.succeed(slot, Option.some(response)))
        ).pipe(
          Effect.onInterrupt(() => Deferred.succeed(slot, Option.none()))
        )
      )
    }
    if (slots.length === 0) return
    yield* Effect.forkIn(
      Effect.forEach(slots, Deferred.await).pipe(
        Effect.flatMap((responses) => {
          const out = responses.flatMap((r) => (Option.isSome(r) ? [r.value] : []))
          return out.length === 0 ? Effect.void : sendQuietly(state, out)
        })
      ),
      state.scope
    )
  })
