/**
 * Negotiation memory: what negotiation found each server speaks, so that the next connection to a handshake-only
 * server skips the `server/discover` probe. In-process by default (an LRU), replaceable through the Reference.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** What negotiation found a server speaks: the stateless revision, or only the handshake revisions. */
export type Era = "stateless" | "handshake"

/** Remembers per server what negotiation found. */
export interface NegotiationMemoryService {
  /** What was found for a server, if anything. */
  readonly get: (server: string) => Effect.Effect<Option.Option<Era>>
  /** Records what was found for a server. */
  readonly set: (server: string, era: Era) => Effect.Effect<void>
}

/** How many servers an in-process negotiation memory remembers by default (the least recently used are forgotten). */
export const negotiationMemoryCapacity = 1_000

/** An in-process negotiation memory of at most `capacity` servers (default 1,000), least recently used forgotten. */
export const makeNegotiationMemory = (capacity: number = negotiationMemoryCapacity): NegotiationMemoryService => {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const eras = new Map<string, Era>()
  return {
    get: (server) =>
      Effect.sync(() => {
        const era = eras.get(server)
        if (era === undefined) return Option.none()
        eras.delete(server)
        eras.set(server, era)
        return Option.some(era)
      }),
    set: (server, era) =>
      Effect.sync(() => {
        eras.delete(server)
        eras.set(server, era)
        for (const oldest of eras.keys()) {
          if (eras.size <= Math.max(1, capacity)) break
          eras.delete(oldest)
        }
      })
  }
}

/** Where clients remember negotiation outcomes; by default one in-process memory shared by every client. */
export class NegotiationMemory extends Context.Reference<NegotiationMemory>()(
  "@effect-mcp/core/McpClient/NegotiationMemory",
  { defaultValue: () => makeNegotiationMemory() }
) {}
