/**
 * An in-memory transport: two linked ends, no bytes, no sockets. Messages are handed over as values.
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Transport from "./Transport.js"

/** Two linked transport ends: what one sends, the other receives. */
export interface Pair {
  readonly client: Transport.TransportService
  readonly server: Transport.TransportService
}

const end = (
  inbox: Queue.Queue<Transport.Incoming>,
  outbox: Queue.Queue<Transport.Incoming>
): Transport.TransportService => ({
  incoming: Stream.fromQueue(inbox),
  inbox,
  send: (message) =>
    Effect.suspend(() =>
      outbox.unsafeOffer(Transport.frame(message))
        ? Effect.void
        : Effect.fail(new Transport.TransportError({ reason: "the in-memory peer has closed" }))
    )
})

/** Makes a linked pair; closing the scope ends both directions, so each side sees its peer go away. */
export const makePair: Effect.Effect<Pair, never, Scope.Scope> = Effect.gen(function*() {
  const toServer = yield* Effect.acquireRelease(Queue.unbounded<Transport.Incoming>(), Queue.shutdown)
  const toClient = yield* Effect.acquireRelease(Queue.unbounded<Transport.Incoming>(), Queue.shutdown)
  return { client: end(toClient, toServer), server: end(toServer, toClient) }
})
