/**
 * Dispatch of one message from the peer: a request starts its handler in a fiber of its own (kept in a FiberMap by
 * id while it runs), a response settles our request, `notifications/cancelled` interrupts the request it names,
 * `notifications/progress` reaches our request's caller, and any other notification goes to the session.
 */
import { JsonRpc, McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import type * as Transport from "../../Transport.js"
import * as FastPath from "./fastPath.js"
import * as Outgoing from "./outgoing.js"
import { internalError, sendAnswer, sendQuietly } from "./send.js"
import type { ConnectionState } from "./state.js"
import * as Telemetry from "./telemetry.js"

/** Acts on one decoded message, in the transport's call. */
export const handleMessage = <E>(state: ConnectionState<E>, message: JsonRpc.Message, frame: Transport.Frame): void => {
  if (!("method" in message)) return Outgoing.settle(state, message)
  if (JsonRpc.isRequest(message)) return startRequest(state, message, frame)
  switch (message.method) {
    case "notifications/cancelled":
      return state.traced
        ? traced(state, message, frame, () => onCancelled(state, message.params))
        : onCancelled(state, message.params)
    case "notifications/progress":
      return state.traced
        ? traced(state, message, frame, () => Outgoing.onProgress(state, message.params))
        : Outgoing.onProgress(state, message.params)
    default:
      // Started at once: a handler that needs no wait is done before the next frame is handed over.
      FastPath.runInBackground(state, notified(state, message, frame))
  }
}

/** Runs a request's handler and hands the response it deserves to `respond` (none when interrupted). */
export const answer = <E>(
  state: ConnectionState<E>,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  respond: (response: JsonRpc.Message) => Effect.Effect<void>
): Effect.Effect<void> => {
  const handlers = state.handlers
  return Effect.matchCauseEffect(handlers.onRequest(request, frame), {
    onSuccess: (result) => respond(JsonRpc.success(request.id, result)),
    onFailure: (cause) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        return respond(JsonRpc.failure(request.id, handlers.toWire(failure.value, request, frame)))
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      return Effect.logError(`effect-mcp: the handler of ${request.method} failed`, cause).pipe(
        Effect.zipRight(respond(JsonRpc.failure(request.id, internalError)))
      )
    }
  })
}

/** `effect` within the engine's bound on concurrent requests, when it has one. */
export const bounded = <E, A, E2>(state: ConnectionState<E>, effect: Effect.Effect<A, E2>): Effect.Effect<A, E2> =>
  state.semaphore === undefined ? effect : state.semaphore.withPermits(1)(effect)

/** Starts answering a request in a fiber of its own, at once (a handler that needs no wait completes here). */
const startRequest = <E>(state: ConnectionState<E>, request: JsonRpc.Request, frame: Transport.Frame): void => {
  if (FastPath.isInFlight(state, request.id)) {
    FastPath.runInBackground(
      state,
      sendQuietly(
        state,
        JsonRpc.failure(request.id, {
          code: McpError.codes.InvalidRequest,
          message: `Request id ${JSON.stringify(request.id)} is already in use by a request in flight`
        })
      )
    )
    return
  }
  FastPath.startInFlight(
    state,
    request.id,
    bounded(
      state,
      state.traced
        ? Telemetry.incomingRequest(state, request, frame, (observe) =>
          answer(state, request, frame, (response) => {
            observe(response)
            return sendAnswer(state, request.id, response)
          }))
        : answer(state, request, frame, (response) => sendAnswer(state, request.id, response))
    )
  )
}

/** Hands a notification to the session (in a span, when the connection traces); a failure is logged. */
const notified = <E>(
  state: ConnectionState<E>,
  notification: JsonRpc.Notification,
  frame: Transport.Frame
): Effect.Effect<void> => {
  const handled = state.handlers.onNotification(notification, frame).pipe(
    Effect.catchAllCause((cause) => Effect.logError(`effect-mcp: notification ${notification.method} failed`, cause))
  )
  return state.traced ? Telemetry.incomingNotification(state, notification, frame, handled) : handled
}

/** Acts on a notification the engine handles itself, inside its span (at once: the fiber runs until it must wait). */
const traced = <E>(
  state: ConnectionState<E>,
  notification: JsonRpc.Notification,
  frame: Transport.Frame,
  act: () => void
): void => {
  FastPath.runInBackground(state, Telemetry.incomingNotification(state, notification, frame, Effect.sync(act)))
}

/** Interrupts the running request a `notifications/cancelled` names. */
const onCancelled = <E>(state: ConnectionState<E>, params: Record<string, unknown> | undefined): void => {
  const id = params?.requestId
  if ((typeof id === "string" || typeof id === "number") && FastPath.isInFlight(state, id)) {
    FastPath.runInBackground(state, FiberMap.remove(FastPath.inflightMap(state), id))
  }
}
