/** PKCE (RFC 7636) with S256, and the random values of an authorization request (`state`). */
import { createHash, randomBytes } from "node:crypto"

/** A random URL-safe string of `bytes` random bytes. */
export const randomString = (bytes = 32): string => randomBytes(bytes).toString("base64url")

/** A code verifier and its S256 challenge. */
export interface Pkce {
  readonly verifier: string
  readonly challenge: string
}

/** A fresh verifier (43 characters, 256 bits) and its challenge. */
export const make = (): Pkce => {
  const verifier = randomString(32)
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}
