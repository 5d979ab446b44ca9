/**
 * The identities of recently introspected tokens, keyed by a SHA-256 hash of the token (never the token itself),
 * each kept until the token's `exp` or the cache's own time to live, whichever comes first, and at most `capacity` of
 * them (the oldest goes first).
 */
import type { Transport } from "@effect-mcp/core"
import { createHash } from "node:crypto"

/** A bounded cache of introspection results. */
export interface TokenCache {
  /** The identity kept for a token, if it is still fresh. */
  readonly get: (token: string) => Transport.AuthInfo | undefined
  /** Keeps a token's identity until `expiresAtMs` (or the cache's time to live). */
  readonly set: (token: string, info: Transport.AuthInfo, expiresAtMs: number | undefined) => void
}

const keyOf = (token: string) => createHash("sha256").update(token).digest("base64url")

/** A cache of at most `capacity` entries, each kept at most `ttlMs`. */
export const make = (capacity: number, ttlMs: number): TokenCache => {
  const entries = new Map<string, { readonly info: Transport.AuthInfo; readonly until: number }>()
  return {
    get: (token) => {
      if (capacity <= 0) return undefined
      const key = keyOf(token)
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until > Date.now()) return entry.info
      entries.delete(key)
      return undefined
    },
    set: (token, info, expiresAtMs) => {
      if (capacity <= 0) return
      const until = Math.min(Date.now() + ttlMs, expiresAtMs ?? Infinity)
      if (until <= Date.now()) return
      const key = keyOf(token)
      entries.delete(key)
      while (entries.size >= capacity) entries.delete(entries.keys().next().value!)
      entries.set(key, { info, until })
    }
  }
}
