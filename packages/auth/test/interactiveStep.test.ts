/**
 * The loopback interactive step: a listener on 127.0.0.1 at a random port receives the browser's redirect (here, a
 * real GET made by `show` as a browser would) and hands back its code, state and iss; an error redirect is the
 * server's typed OAuth error; a redirect that never comes ends in `InteractionFailed`; the listener is closed with
 * the scope.
 */
import { InteractiveStep, OAuthError } from "@effect-mcp/auth"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/** A browser that follows the authorization URL's redirect_uri with `query`, as an authorization server would send it. */
const browser = (query: string) => (authorizationUrl: string) =>
  Effect.promise(async () => {
    const redirect = new URL(authorizationUrl).searchParams.get("redirect_uri")!
    const response = await fetch(`${redirect}?${query}`)
    await response.text()
  })

describe("InteractiveStep.makeLoopback", () => {
  it.scopedLive("receives the redirect on 127.0.0.1 and reads its code, state and iss", () =>
    Effect.gen(function*() {
      const shown = yield* Ref.make<ReadonlyArray<string>>([])
      const step = InteractiveStep.makeLoopback({
        show: (url) =>
          Effect.zipRight(
            Ref.update(shown, (all) => [...all, url]),
            browser("code=c1&state=s1&iss=https%3A%2F%2Fas")(url)
          )
      })
      const pending = yield* step.begin
      expect(pending.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      const url = `https://as.example/authorize?redirect_uri=${encodeURIComponent(pending.redirectUri)}`
      expect(yield* pending.complete(url)).toEqual({ code: "c1", state: "s1", iss: "https://as" })
      expect(yield* Ref.get(shown)).toEqual([url])
    }))

  it.scopedLive("an error redirect is the server's OAuth error; no redirect at all times out", () =>
    Effect.gen(function*() {
      const refused = yield* InteractiveStep.makeLoopback({
        show: browser("error=access_denied&error_description=no%20thanks")
      }).begin
      const url = (redirect: string) => `https://as.example/authorize?redirect_uri=${encodeURIComponent(redirect)}`
      const error = yield* Effect.flip(refused.complete(url(refused.redirectUri)))
      expect(error).toBeInstanceOf(OAuthError.OAuthErrorResponse)
      expect(error).toMatchObject({ error: "access_denied", description: "no thanks" })

      const ignored = yield* InteractiveStep.makeLoopback({ show: () => Effect.void, timeout: "200 millis" }).begin
      const timedOut = yield* Effect.flip(ignored.complete(url(ignored.redirectUri)))
      expect(timedOut).toBeInstanceOf(OAuthError.InteractionFailed)
    }))

  it.live("the listener is closed with the scope", () =>
    Effect.gen(function*() {
      const redirect = yield* Effect.scoped(Effect.map(InteractiveStep.makeLoopback().begin, (p) => p.redirectUri))
      const reached = yield* Effect.promise(() => fetch(redirect).then(() => true, () => false))
      expect(reached).toBe(false)
    }))
})
