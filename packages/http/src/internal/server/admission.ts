/**
 * The session limits of one endpoint, shared by its handshake sessions and its legacy HTTP+SSE ones: which client a
 * request comes from, and admitting a new session (ending the idle ones that make its room) or refusing it.
 */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as SessionLimits from "../sessionLimits.js"
import type { Config } from "./config.js"
import type { Reply, RequestHead } from "./exchange.js"
import * as Replies from "./reply.js"
import type { Slot } from "./session.js"

/** The session limits of an endpoint. */
export interface Admission {
  /** The registry every session of the endpoint counts in. */
  readonly limits: SessionLimits.Registry<Slot>
  /** The client a request comes from, for the per-client bound (undefined: no bound). */
  readonly clientOf: (request: RequestHead) => string | undefined
  /** Admits a new session, ending the idle ones that make its room; or the refusal to answer. */
  readonly admit: (slot: Slot) => Effect.Effect<Reply | undefined>
}

/** The session limits of an endpoint. */
export const make = (config: Config): Admission => {
  const { options, maxSessions } = config
  const limits = SessionLimits.make<Slot>({
    maxSessions,
    maxSessionsPerClient: options.maxSessionsPerClient ?? SessionLimits.defaultPerClient(maxSessions)
  })
  const clientOf = (request: RequestHead) =>
    options.clientKey !== undefined
      ? options.clientKey(request)
      : request.remoteAddress === undefined
      ? undefined
      : SessionLimits.addressKey(request.remoteAddress)
  const admit = (slot: Slot) =>
    Effect.suspend(() => {
      const admission = limits.admit(slot)
      if (admission._tag === "Refused") {
        return Effect.succeed(Replies.error(admission.status, McpError.serverError(admission.message)))
      }
      return Effect.forEach(admission.evicted, (victim) => victim.close, { discard: true }).pipe(
        Effect.zipRight(
          admission.evicted.length === 0
            ? Effect.void
            : Effect.logDebug(`effect-mcp: ended ${admission.evicted.length} idle session(s) to make room`)
        ),
        Effect.as(undefined)
      )
    })
  return { limits, clientOf, admit }
}
