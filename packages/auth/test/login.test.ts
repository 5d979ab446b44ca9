/**
 * Our OAuth client logging in to our protected server, against a real authorization server (oidc-provider, see
 * examples/oauth-server) over real loopback HTTP: dynamic registration, the authorization code flow with PKCE S256,
 * `resource` and the RFC 9207 `iss` check, through the headless interactive step; the tokens reused by a second
 * client from the same file store (mode 0600) without a new login; a refresh once the access token has expired; a
 * step-up to `mcp:write` when a tool asks for it (403 `insufficient_scope`), invisible to the caller.
 */
import * as AuthServer from "@effect-mcp-examples/oauth-server"
import { InteractiveStep, OAuthClient, TokenStore } from "@effect-mcp/auth"
import { McpClient, McpServer, RequestContext } from "@effect-mcp/core"
import { BearerAuth, McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** echo needs `mcp:write`; whoami shows the identity the server saw. */
const registrations = Layer.mergeAll(
  McpServer.tool({
    name: "echo",
    scopes: ["mcp:write"],
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(text)
  }),
  McpServer.tool({
    name: "whoami",
    input: Schema.Struct({}),
    handler: () =>
      Effect.map(
        RequestContext.RequestContext,
        (ctx) => JSON.stringify({ clientId: ctx.auth?.clientId, scopes: ctx.auth?.scopes })
      )
  })
).pipe(Layer.provideMerge(McpServer.layer({ name: "protected", version: "1.0.0" })))

/** Our server on 127.0.0.1, protected by JWT access tokens from `issuer` for its own URL. */
const protectedServer = (issuer: string) =>
  Effect.gen(function*() {
    const layer = McpNodeHttpServer.layer(({ origin }) => ({
      authenticate: BearerAuth.jwt({ issuer, audience: `${origin}/mcp` }),
      protectedResource: {
        resource: `${origin}/mcp`,
        authorizationServers: [issuer],
        scopesSupported: ["mcp:read"]
      }
    })).pipe(Layer.provideMerge(registrations))
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    return Context.get(context, McpNodeHttpServer.Address).url
  })

/** The headless step, counting the logins it completes (and keeping the last authorization URL). */
const countingStep = (logins: Ref.Ref<number>, lastUrl?: Ref.Ref<string>) =>
  Layer.effect(
    InteractiveStep.InteractiveStep,
    Effect.map(InteractiveStep.InteractiveStep, (step) => ({
      begin: Effect.map(step.begin, (pending) => ({
        ...pending,
        complete: (url: string) =>
          Ref.update(logins, (n) => n + 1).pipe(
            Effect.zipRight(lastUrl === undefined ? Effect.void : Ref.set(lastUrl, url)),
            Effect.zipRight(pending.complete(url))
          )
      }))
    }))
  ).pipe(Layer.provide(InteractiveStep.layerHeadless()))

/** A connected client of `url` with OAuth over `store`. */
const client = (
  url: string,
  store: Layer.Layer<TokenStore.TokenStore>,
  logins: Ref.Ref<number>,
  options: OAuthClient.Options = {},
  lastUrl?: Ref.Ref<string>
) =>
  Layer.build(
    McpClient.layer({ name: "login-test", version: "1.0.0" }).pipe(
      Layer.provide(OAuthClient.layerNodeHttp({ url }, { clientName: "login-test", ...options })),
      Layer.provide(Layer.merge(store, countingStep(logins, lastUrl)))
    )
  ).pipe(Effect.map((context) => Context.get(context, McpClient.McpClient)), Effect.orDie)

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const tempStore = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "effect-mcp-auth-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => join(dir, "tokens.json")))

describe("OAuthClient against oidc-provider", () => {
  it.scopedLive("registers, logs in once (PKCE, resource, iss) and reuses the stored tokens", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* protectedServer(auth.issuer)
      const path = yield* tempStore
      const logins = yield* Ref.make(0)
      const lastUrl = yield* Ref.make("")

      const first = yield* client(url, TokenStore.layerFile(path), logins, {}, lastUrl)
      const who = JSON.parse(text(yield* first.callTool("whoami", {})))
      const asked = new URL(yield* Ref.get(lastUrl)).searchParams
      expect(asked.get("code_challenge_method")).toBe("S256")
      expect(asked.get("resource")).toBe(url)
      expect(asked.get("scope")).toBe("mcp:read offline_access")
      expect(asked.get("state")?.length).toBeGreaterThan(16)
      expect(who.scopes).toContain("mcp:read")
      expect(who.scopes).not.toContain("mcp:write")
      expect(yield* Ref.get(logins)).toBe(1)
      expect(statSync(path).mode & 0o777).toBe(0o600)

      const kept = yield* Effect.flatMap(TokenStore.makeFile(path), (store) => store.tokens(`${url}`))
      expect(kept).toMatchObject({ resource: url, issuer: auth.issuer, clientId: who.clientId })
      expect(kept?.refreshToken).toBeDefined()
      const registered = yield* Effect.flatMap(TokenStore.makeFile(path), (store) => store.client(auth.issuer))
      expect(registered?.clientId).toBe(who.clientId)

      const second = yield* client(url, TokenStore.layerFile(path), logins)
      expect(JSON.parse(text(yield* second.callTool("whoami", {}))).clientId).toBe(who.clientId)
      expect(yield* Ref.get(logins)).toBe(1)
    }))

  it.scopedLive("refreshes an expired access token without a new login", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.startWith({ accessTokenTtl: 1 })
      const url = yield* protectedServer(auth.issuer)
      const logins = yield* Ref.make(0)
      const store = yield* TokenStore.makeMemory
      const mcp = yield* client(url, Layer.succeed(TokenStore.TokenStore, store), logins, { refreshMarginMs: 0 })
      yield* mcp.callTool("whoami", {})
      const before = yield* store.tokens(url)
      yield* Effect.sleep("1500 millis")
      yield* mcp.callTool("whoami", {})
      const after = yield* store.tokens(url)
      expect(after?.accessToken).toBeDefined()
      expect(after?.accessToken).not.toBe(before?.accessToken)
      expect(yield* Ref.get(logins)).toBe(1)
    }))

  it.scopedLive("steps up to mcp:write when echo asks for it, and the call succeeds", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* protectedServer(auth.issuer)
      const logins = yield* Ref.make(0)
      const mcp = yield* client(url, TokenStore.layerMemory, logins)
      expect(JSON.parse(text(yield* mcp.callTool("whoami", {}))).scopes).not.toContain("mcp:write")
      expect(text(yield* mcp.callTool("echo", { text: "hi" }))).toBe("hi")
      expect(yield* Ref.get(logins)).toBe(2)
      expect(JSON.parse(text(yield* mcp.callTool("whoami", {}))).scopes).toContain("mcp:write")
    }))
})
