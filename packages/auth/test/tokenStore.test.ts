/** The file token store: mode 0600, what one store writes another reads, `forget`, and a corrupt file refused typed. */
import { TokenStore } from "@effect-mcp/auth"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const directory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "effect-mcp-store-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const tokens = {
  resource: "https://mcp.example/mcp",
  issuer: "https://as.example",
  clientId: "c",
  accessToken: "at",
  refreshToken: "rt",
  expiresAt: 1
}

describe("TokenStore.makeFile", () => {
  it.scoped("writes 0600 in a 0700 directory; another store reads it; forget drops a resource", () =>
    Effect.gen(function*() {
      const path = join(yield* directory, "nested", "tokens.json")
      const store = yield* TokenStore.makeFile(path)
      yield* store.saveTokens(tokens)
      yield* store.saveClient({
        issuer: "https://as.example",
        clientId: "c",
        tokenEndpointAuthMethod: "none",
        redirectUris: []
      })
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700)
      const other = yield* TokenStore.makeFile(path)
      expect(yield* other.tokens(tokens.resource)).toEqual(tokens)
      expect((yield* other.client("https://as.example"))?.clientId).toBe("c")
      expect(yield* other.client("https://other.example")).toBeUndefined()
      yield* other.forget(tokens.resource)
      expect(yield* store.tokens(tokens.resource)).toBeUndefined()
      expect(yield* store.client("https://as.example")).toBeDefined()
      yield* other.forget(undefined)
      expect(yield* store.client("https://as.example")).toBeUndefined()
    }))

  it.scoped("a file that is not a token store is a TokenStoreError, and is left as it is", () =>
    Effect.gen(function*() {
      const path = join(yield* directory, "tokens.json")
      writeFileSync(path, `{"clients": 42}`)
      const store = yield* TokenStore.makeFile(path)
      const error = yield* Effect.flip(store.saveTokens(tokens))
      expect(error._tag).toBe("TokenStoreError")
      expect(error.message).toContain("is not a token store")
      expect(readFileSync(path, "utf8")).toBe(`{"clients": 42}`)
    }))
})
