/** The introspection cache: bounded in size (the oldest goes first) and by each token's `exp` and its own TTL. */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TokenCache from "../src/internal/server/oauth/tokenCache.js"

const info = (token: string) => ({ token, scopes: ["s"] })

describe("TokenCache", () => {
  it("keeps at most `capacity` tokens, the oldest going first", () => {
    const cache = TokenCache.make(2, 60_000)
    cache.set("a", info("a"), undefined)
    cache.set("b", info("b"), undefined)
    cache.set("c", info("c"), undefined)
    expect([cache.get("a"), cache.get("b")?.token, cache.get("c")?.token]).toEqual([undefined, "b", "c"])
  })

  it("keeps a token no longer than its exp or the TTL, and never one already expired", () => {
    const cache = TokenCache.make(10, 60_000)
    cache.set("expired", info("expired"), Date.now() - 1)
    cache.set("soon", info("soon"), Date.now() + 30)
    cache.set("later", info("later"), Date.now() + 3_600_000)
    expect(cache.get("expired")).toBeUndefined()
    expect(cache.get("soon")?.token).toBe("soon")
    expect(cache.get("later")?.token).toBe("later")
    const shortTtl = TokenCache.make(10, 20)
    shortTtl.set("t", info("t"), Date.now() + 3_600_000)
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        expect(cache.get("soon")).toBeUndefined()
        expect(shortTtl.get("t")).toBeUndefined()
        resolve()
      }, 60)
    )
  })

  it("keeps nothing with a capacity of 0", () => {
    const cache = TokenCache.make(0, 60_000)
    cache.set("a", info("a"), undefined)
    expect(cache.get("a")).toBeUndefined()
  })

  it.effect("keys a token by the hex of its SHA-256 digest (Web Crypto), never the token itself", () =>
    Effect.gen(function*() {
      const key = yield* TokenCache.keyOf("secret-token")
      expect(key).toMatch(/^[0-9a-f]{64}$/)
      expect(key).not.toContain("secret-token")
      expect(yield* TokenCache.keyOf("secret-token")).toBe(key)
      expect(yield* TokenCache.keyOf("other-token")).not.toBe(key)
      // SHA-256("abc"), FIPS 180-2's first example.
      expect(yield* TokenCache.keyOf("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }))
})
