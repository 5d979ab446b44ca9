/**
 * The DNS-rebinding guard's two checks as pure functions, for what the HTTP table tests (guards.test.ts) leave open
 * (each case kills mutants that survived `pnpm mutation`, see docs/mutation.md): a Host is matched from its first
 * character to its last, an allow-list entry may carry a port, and an Origin with a password, a fragment or a
 * trailing slash is no bare origin.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Guards from "../src/internal/guards.js"

const local = ["localhost", "127.0.0.1", "[::1]"]

describe("Guards.hostAllowed", () => {
  it("a Host is an allowed name, with at most a numeric port, matched whole", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:1", "[::1]", "[::1]:8080", "LOCALHOST:80"]) {
      expect(Guards.hostAllowed(local, host), host).toBe(true)
    }
    for (
      const host of [
        undefined,
        "",
        ":80",
        "evil.example:localhost",
        "evil:x:localhost",
        "evil.example:80:localhost",
        "localhost:80evil",
        "localhost:80:80",
        "localhost:",
        "localhost:x",
        "[::1]:80x",
        "x[::1]",
        "[::1]x"
      ]
    ) {
      expect(Guards.hostAllowed(local, host), String(host)).toBe(false)
    }
  })

  it("an allow-list entry with a port allows that host and port exactly", () => {
    expect(Guards.hostAllowed(["localhost:3000"], "localhost:3000")).toBe(true)
    expect(Guards.hostAllowed(["localhost:3000"], "LOCALHOST:3000")).toBe(true)
    expect(Guards.hostAllowed(["localhost:3000"], "localhost:3001")).toBe(false)
    expect(Guards.hostAllowed(["localhost:3000"], "localhost")).toBe(false)
  })
})

describe("Guards.originAllowed", () => {
  it("no Origin (not a browser) passes; a listed one passes exactly, and nothing else", () => {
    expect(Guards.originAllowed(local, undefined, undefined)).toBe(true)
    expect(Guards.originAllowed(local, ["https://app.example"], "https://app.example")).toBe(true)
    expect(Guards.originAllowed(local, ["https://app.example"], "https://app.example/")).toBe(false)
    expect(Guards.originAllowed(local, ["https://app.example"], "http://localhost")).toBe(false)
    expect(Guards.originAllowed(local, [], "http://localhost")).toBe(false)
  })

  it("without a list, a bare http(s) origin of a local host passes", () => {
    for (const origin of ["http://localhost", "https://localhost:8443", "http://127.0.0.1:1", "http://[::1]:3000"]) {
      expect(Guards.originAllowed(local, undefined, origin), origin).toBe(true)
    }
  })

  it("an origin with a user, a password, a path, a query, a fragment or a trailing slash is no bare origin", () => {
    for (
      const origin of [
        "http://user@localhost",
        "http://:secret@localhost",
        "http://user:secret@localhost:3000",
        "http://localhost/",
        "http://localhost:3000/",
        "http://localhost/x",
        "http://localhost?x",
        "http://localhost#x",
        "http://localhost:3000#x",
        "ftp://localhost",
        "null",
        "",
        "localhost"
      ]
    ) {
      expect(Guards.originAllowed(local, undefined, origin), origin).toBe(false)
    }
  })
})
