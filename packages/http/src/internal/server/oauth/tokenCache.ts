/**
 * The identities of recently introspected tokens, keyed by a SHA-256 hash of the token (never the token itself, see
 * `keyOf`), each kept until the token's `exp` or the cache's own time to live, whichever comes first, and at most
 * `capacity` of them (the oldest goes first). The hash is Web Crypto's, so that workers and browsers run it too.
 */
import type { Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"

/** A bounded cache of introspection results, by the `keyOf` of each token. */
export interface TokenCache {
  /** The identity kept under a token's key, if it is still fresh. */
  readonly get: (key: string) => Transport.AuthInfo | undefined
  /** Keeps a token's identity under its key until `expiresAtMs` (or the cache's time to live). */
  readonly set: (key: string, info: Transport.AuthInfo, expiresAtMs: number | undefined) => void
}

const encoder = new TextEncoder()

/** A token's key in the cache: the hex of its SHA-256 digest. */
export const keyOf = (token: string): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", encoder.encode(token))),
    (digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("")
  )

/** A cache of at most `capacity` entries, each kept at most `ttlMs`. */
export const make = (capacity: number, ttlMs: number): TokenCache => {
  const entries = new Map<string, { readonly info: Transport.AuthInfo; readonly until: number }>()
  return {
    get: (key) => {
      if (capacity <= 0) return undefined
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until > Date.now()) return entry.info
      entries.delete(key)
      return undefined
    },
    set: (key, info, expiresAtMs) => {
      if (capacity <= 0) return
      const until = Math.min(Date.now() + ttlMs, expiresAtMs ?? Infinity)
      if (until <= Date.now()) return
      entries.delete(key)
      while (entries.size >= capacity) entries.delete(entries.keys().next().value!)
      entries.set(key, { info, until })
    }
  }
}
