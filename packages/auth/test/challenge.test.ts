/** `WWW-Authenticate` parsing: the Bearer challenge among others, quoted and bare values, and what is no challenge. */
import { describe, expect, it } from "@effect/vitest"
import * as Challenge from "../src/internal/challenge.js"

describe("WWW-Authenticate", () => {
  it("reads the parameters of a Bearer challenge", () => {
    expect(
      Challenge.parse(
        `Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`
      )
    ).toEqual({
      error: "insufficient_scope",
      scope: "mcp:read mcp:write",
      resourceMetadata: "https://x/.well-known/oauth-protected-resource/mcp"
    })
  })

  it("finds the Bearer challenge after another scheme, with bare values and escapes", () => {
    expect(Challenge.parse(`Basic realm="a, b", Bearer error=invalid_token, scope="a \\"b\\""`)).toEqual({
      error: "invalid_token",
      scope: `a "b"`,
      resourceMetadata: undefined
    })
    expect(Challenge.parse(`bearer`)).toEqual({ error: undefined, scope: undefined, resourceMetadata: undefined })
  })

  it("is no challenge without a Bearer scheme, or when absent", () => {
    expect(Challenge.parse(`Basic realm="x"`)).toBeUndefined()
    expect(Challenge.parse(undefined)).toBeUndefined()
    expect(Challenge.parse("")).toBeUndefined()
    expect(Challenge.parse(`Bearer scope="${"x".repeat(9000)}"`)).toBeUndefined()
  })
})
