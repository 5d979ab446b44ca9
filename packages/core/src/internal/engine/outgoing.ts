/**
 * Our own requests: sending one under a fresh id with its timeout and progress token, settling it with the response
 * (or with what the transport says of it), resetting its timeout on progress, and abandoning it when its caller goes
 * away first.
 */
import { Json, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { ConnectionClosed } from "../../Errors.js"
import * as FastPath from "./fastPath.js"
import { complete, expiryOf, type Pending } from "./pending.js"
import { sendCancel } from "./send.js"
import type { ConnectionState } from "./state.js"
import * as Telemetry from "./telemetry.js"
import * as Timeouts from "./timeouts.js"
import type { RequestFailure, RequestOptions } from "./types.js"

/**
 * Sends a request and waits for its result. It settles without an exit handler around it (an uninterruptible region
 * per call costs more than the rest of an in-memory round trip): responses, timeouts and the connection's end take it
 * out of `pending` themselves, and a caller interrupted while the request is being sent (a transport waiting for room)
 * or while it waits for the response abandons it, and cancels it on the wire, from an observer of the caller's fiber
 * (added before the send and removed when the request settles), once that fiber has ended.
 */
export const request = <E>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: RequestOptions
): Effect.Effect<Record<string, unknown>, RequestFailure> =>
  state.traced
    ? Telemetry.outgoingRequest(state, method, params, (traced, onId) =>
      send(state, method, traced, {
        ...requestOptions,
        onId: (id) => {
          onId(id)
          requestOptions.onId?.(id)
        }
      }))
    : send(state, method, params, requestOptions)

/** Sends a request and waits for its result (see `request`). */
const send = <E>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: RequestOptions
): Effect.Effect<Record<string, unknown>, RequestFailure> =>
  Effect.withFiberRuntime((caller) => {
    if (state.hasClosed) return Effect.fail(new ConnectionClosed({ reason: "the connection has ended" }))
    const id = state.nextId++
    const now = FastPath.now(state)
    const related = requestOptions.relatedRequestId
    const entry: Pending = {
      caller,
      abandonOnExit: () => FastPath.runInBackground(state, abandon(state, id, entry)),
      method,
      timeoutMs: requestOptions.timeout === undefined
        ? state.defaultTimeout
        : Duration.toMillis(requestOptions.timeout),
      deadlineMs: requestOptions.maxTotalTimeout === undefined
        ? Number.POSITIVE_INFINITY
        : now + Duration.toMillis(requestOptions.maxTotalTimeout),
      resume: undefined,
      outcome: undefined,
      onProgress: requestOptions.onProgress,
      resets: requestOptions.resetTimeoutOnProgress ?? true,
      lastActivity: now,
      related
    }
    ;(state.pending ??= new Map()).set(id, entry)
    Timeouts.sweepBy(state, now, expiryOf(entry))
    requestOptions.onId?.(id)
    const withToken = requestOptions.onProgress === undefined ? params : {
      ...params,
      _meta: { ...(Json.isRecord(params?._meta) ? params._meta : {}), progressToken: id }
    }
    FastPath.watchCaller(caller, entry)
    // A request that expired before the caller got to send it (a fiber that yielded under load for longer than a
    // short timeout) is never sent: its cancellation went out already, and the peer would run it for nothing.
    const sending = Effect.suspend(() =>
      state.pending?.get(id) === entry
        ? state.transport.send(
          JsonRpc.request(id, method, withToken),
          related === undefined ? undefined : { relatedRequestId: related }
        )
        : Effect.void
    )
    return Effect.matchCauseEffect(sending, {
      onFailure: (cause) => {
        FastPath.unwatchCaller(entry)
        state.pending?.delete(id)
        return Effect.failCause(cause)
      },
      onSuccess: () => FastPath.awaitOutcome(entry)
    })
  })

/** Forgets our request `id` whose caller is gone, and tells the peer (if it is still waiting for the response). */
const abandon = <E>(state: ConnectionState<E>, id: JsonRpc.RequestId, entry: Pending): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (state.pending?.get(id) !== entry) return Effect.void
    state.pending.delete(id)
    return sendCancel(state, id, "The request was cancelled", entry.related)
  })

/**
 * Settles our request `id` with what its response says. A response for no such request is dropped: quietly (at
 * debug level) when it answers a request of ours that has settled already (timed out, cancelled or abandoned, as
 * the answer may cross the cancellation on the wire), with a warning when it answers none we ever sent.
 */
export const settleId = <E>(
  state: ConnectionState<E>,
  id: JsonRpc.RequestId | null,
  outcome: () => Effect.Effect<Record<string, unknown>, RequestFailure>,
  why = "unknown request id"
): void => {
  const entry = id === null ? undefined : state.pending?.get(id)
  if (entry === undefined || id === null) {
    FastPath.runInBackground(
      state,
      wasSent(state, id)
        ? Effect.logDebug(`effect-mcp: dropped a late response to request ${McpError.quote(id)}, settled already`)
        : Effect.logWarning(`effect-mcp: dropped a response for ${why} ${McpError.quote(id)}`)
    )
    return
  }
  state.pending?.delete(id)
  complete(entry, outcome())
}

/** Whether `id` is one this connection gave a request of its own (ids are numbered from 0). */
const wasSent = <E>(state: ConnectionState<E>, id: JsonRpc.RequestId | null): boolean =>
  typeof id === "number" && Number.isInteger(id) && id >= 0 && id < state.nextId

/** Settles the request a response answers, with its result or its error. */
export const settle = <E>(state: ConnectionState<E>, response: JsonRpc.Response): void =>
  settleId(
    state,
    response.id,
    () => "error" in response ? Effect.fail(McpError.fromWire(response.error)) : Effect.succeed(response.result)
  )

/** Hands a `notifications/progress` to the request its token names, and restarts that request's timeout. */
export const onProgress = <E>(state: ConnectionState<E>, params: Record<string, unknown> | undefined): void => {
  const token = params?.progressToken
  const entry = typeof token === "string" || typeof token === "number" ? state.pending?.get(token) : undefined
  if (entry === undefined || entry.onProgress === undefined) {
    FastPath.runInBackground(state, Effect.logDebug(`effect-mcp: progress for unknown token ${JSON.stringify(token)}`))
    return
  }
  if (typeof params?.progress !== "number") return
  if (entry.resets) entry.lastActivity = FastPath.now(state)
  entry.onProgress({
    progress: params.progress,
    ...(typeof params.total === "number" ? { total: params.total } : {}),
    ...(typeof params.message === "string" ? { message: params.message } : {})
  })
}
