/**
 * An in-memory transport: two linked ends, no bytes, no sockets. Messages are handed over as values,
 * straight into the peer's engine.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Scoped from "./internal/scoped.js"
import * as Transport from "./Transport.js"

/** Two linked transport ends: what one sends, the other receives. */
export interface Pair {
  readonly client: Transport.TransportService
  readonly server: Transport.TransportService
}

const closedPeer = Effect.fail(new Transport.TransportError({ reason: "the in-memory peer has closed" }))

const end = (inbound: Transport.Inbound, peer: Transport.Inbound): Transport.TransportService => ({
  receive: inbound.receive,
  listen: inbound.listen,
  send: (message) => Effect.suspend(() => (peer.push(Transport.frame(message)) ? Effect.void : closedPeer))
})

/** Makes a linked pair; closing the scope ends both directions, so each side sees its peer go away. */
export const makePair: Effect.Effect<Pair, never, Scope.Scope> = Effect.flatMap(Effect.scope, (scope) => {
  const toServer = Transport.unsafeMakeInbound()
  const toClient = Transport.unsafeMakeInbound()
  return Effect.as(
    Scoped.whenClosed(scope, () => {
      toServer.end()
      toClient.end()
      return Effect.void
    }),
    { client: end(toClient, toServer), server: end(toServer, toClient) }
  )
})
