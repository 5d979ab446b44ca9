/**
 * The official SDK clients (1.32 and 2.4) logging in to `main.js --http --auth-issuer <issuer>` on their own, against
 * a real authorization server (oidc-provider on 127.0.0.1): each SDK's `auth` finds the authorization server through
 * our protected resource metadata, registers itself (RFC 7591), and sends the user to the authorization URL (PKCE
 * S256, `state`, `resource`, the scope our metadata lists). The test plays the user: a user agent follows that URL
 * through the sign-in (which grants at once) to the redirect URI, a loopback listener on 127.0.0.1
 * (`InteractiveStep.makeLoopback`), where the code arrives; the SDK redeems it (`finishAuth`), connects again with
 * the token, and calls `echo`, which needs `mcp:write`. With one-second access tokens, each SDK answers our 401
 * `invalid_token` with a refresh (no new login) and the call goes through.
 */
import * as Browser from "@effect-mcp-examples/oauth-server/Browser"
import { InteractiveStep } from "@effect-mcp/auth"
import { describe, expect, it } from "@effect/vitest"
import {
  Client as V2Client,
  type OAuthClientProvider as V2Provider,
  StreamableHTTPClientTransport as V2Http,
  UnauthorizedError as V2Unauthorized
} from "@modelcontextprotocol/client"
import {
  type OAuthClientProvider as V1Provider,
  UnauthorizedError as V1Unauthorized
} from "@modelcontextprotocol/sdk/client/auth.js"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { protectedEverything } from "./protectedServer.js"

/**
 * What an SDK's `auth` keeps between the redirect and its return, in memory: the registration, the tokens, the PKCE
 * verifier, the `state` it sent; and the authorization URL it asked the user to open.
 */
class MemoryProvider {
  client: OAuthClientInformationMixed | undefined
  stored: OAuthTokens | undefined
  verifier = ""
  readonly sentState = randomBytes(16).toString("hex")
  readonly authorizationUrls: Array<URL> = []
  constructor(readonly redirectUrl: string, readonly clientName: string) {}
  get clientMetadata() {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native"
    }
  }
  state() {
    return this.sentState
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client
  }
  tokens() {
    return this.stored
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url)
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/** One SDK's client, reduced to what the login needs. */
interface Sdk {
  /** Connects over a new transport; rejects with the SDK's `UnauthorizedError` when a login is needed. */
  readonly connect: () => Promise<void>
  /** Redeems the redirect's query on the transport that asked for the login. */
  readonly finish: (redirect: URLSearchParams) => Promise<void>
  readonly echo: (text: string) => Promise<unknown>
  readonly close: () => Promise<void>
  readonly isUnauthorized: (error: unknown) => boolean
  /** The scope it asks for: the metadata's `scopes_supported`, and (2.4) `offline_access`, which oidc-provider lists. */
  readonly scope: string
}

const sdk1 = (url: string, provider: MemoryProvider): Sdk => {
  const authProvider: V1Provider = provider
  let client = new V1Client({ name: "sdk1-login", version: "1.32.2" })
  let transport = new V1Http(new URL(url), { authProvider })
  return {
    connect: () => {
      client = new V1Client({ name: "sdk1-login", version: "1.32.2" })
      transport = new V1Http(new URL(url), { authProvider })
      return client.connect(transport)
    },
    // SDK 1.32's finishAuth takes the code alone (it has no RFC 9207 `iss` check).
    finish: (redirect) => transport.finishAuth(redirect.get("code") ?? ""),
    echo: (text) => client.callTool({ name: "echo", arguments: { text } }).then((r) => r.content),
    close: () => client.close(),
    isUnauthorized: (error) => error instanceof V1Unauthorized,
    scope: "mcp:write"
  }
}

const sdk2 = (url: string, provider: MemoryProvider): Sdk => {
  const authProvider: V2Provider = provider
  let client = new V2Client({ name: "sdk2-login", version: "2.4.0" })
  let transport = new V2Http(new URL(url), { authProvider })
  return {
    connect: () => {
      client = new V2Client({ name: "sdk2-login", version: "2.4.0" })
      transport = new V2Http(new URL(url), { authProvider })
      return client.connect(transport)
    },
    // SDK 2.4 reads `code` and `iss` from the redirect and checks `iss` (RFC 9207) before redeeming the code.
    finish: (redirect) => transport.finishAuth(redirect),
    echo: (text) => client.callTool({ name: "echo", arguments: { text } }).then((r) => r.content),
    close: () => client.close(),
    isUnauthorized: (error) => error instanceof V2Unauthorized,
    scope: "mcp:write offline_access"
  }
}

/**
 * One SDK's login to `url`, protected by `issuer`: refused, the user agent signs in, the code redeemed, connected
 * again with the token.
 */
const signIn = (name: string, make: (url: string, provider: MemoryProvider) => Sdk, url: string, issuer: string) =>
  Effect.gen(function*() {
    // The user agent: it opens the URL the SDK shows and follows it to the redirect URI, where the listener waits.
    const landings: Array<Browser.Landing> = []
    const step = InteractiveStep.makeLoopback({
      show: (authorizationUrl) =>
        Browser.browse(authorizationUrl).pipe(
          Effect.tap((landing) => Effect.sync(() => landings.push(landing))),
          Effect.orDie
        )
    })
    const pending = yield* step.begin
    const provider = new MemoryProvider(pending.redirectUri, name)
    const client = make(url, provider)

    // The first connection is refused (401); the SDK registers, and asks the user to open the authorization URL.
    const refused = yield* Effect.promise(() => client.connect().then(() => undefined, (e: unknown) => e))
    expect(client.isUnauthorized(refused)).toBe(true)
    expect(provider.client?.client_id).toBeDefined()
    expect(provider.authorizationUrls).toHaveLength(1)
    const asked = provider.authorizationUrls[0]!
    expect(asked.origin).toBe(issuer)
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256")
    expect(asked.searchParams.get("resource")).toBe(url)
    expect(asked.searchParams.get("scope")).toBe(client.scope)
    expect(asked.searchParams.get("redirect_uri")).toBe(pending.redirectUri)

    // The user signs in; the redirect reaches the loopback listener with the code, the state sent, and the issuer.
    const callback = yield* pending.complete(asked.href)
    expect(landings.map((l) => [l.url.origin + l.url.pathname, l.status])).toEqual([[pending.redirectUri, 200]])
    expect(callback.state).toBe(provider.sentState)
    expect(callback.iss).toBe(issuer)
    const redirect = new URLSearchParams({ code: callback.code, state: callback.state!, iss: callback.iss! })
    yield* Effect.promise(() => client.finish(redirect))
    expect(provider.stored?.access_token).toBeDefined()
    expect(provider.stored?.scope?.split(" ")).toContain("mcp:write")

    // Connected again, with the token.
    yield* Effect.promise(client.connect)
    return { client, provider }
  })

/** Runs one SDK's login against a fresh authorization server and everything server, then calls echo. */
const login = (name: string, make: (url: string, provider: MemoryProvider) => Sdk) =>
  Effect.gen(function*() {
    const { auth, url } = yield* protectedEverything()
    const { client } = yield* signIn(name, make, url, auth.issuer)
    // echo needs mcp:write.
    expect(yield* Effect.promise(() => client.echo("logged in"))).toEqual([{ type: "text", text: "logged in" }])
    yield* Effect.promise(client.close)
  })

describe("the official SDK clients log in to everything --http --auth-issuer", () => {
  it.scopedLive("SDK 1.32: DCR, PKCE, the redirect to a loopback listener, finishAuth, then echo", () =>
    login("sdk1-login", sdk1))

  it.scopedLive("SDK 2.4: DCR, PKCE, the redirect to a loopback listener, finishAuth with iss, then echo", () =>
    login("sdk2-login", sdk2))

  it.scopedLive("both refresh an expired access token on our 401 invalid_token, without a new login", () =>
    Effect.gen(function*() {
      const { auth, url } = yield* protectedEverything(undefined, { accessTokenTtl: 1 })
      const signedIn = yield* Effect.all([
        signIn("sdk1-refresh", sdk1, url, auth.issuer),
        signIn("sdk2-refresh", sdk2, url, auth.issuer)
      ])
      const before = signedIn.map(({ provider }) => provider.stored?.access_token)
      expect(signedIn.map(({ provider }) => provider.stored?.refresh_token === undefined)).toEqual([false, false])
      // Past the token's one second, and the server's clock tolerance (5 s) after it.
      yield* Effect.sleep("7 seconds")
      for (const [i, { client, provider }] of signedIn.entries()) {
        expect(yield* Effect.promise(() => client.echo("refreshed"))).toEqual([{ type: "text", text: "refreshed" }])
        expect(provider.authorizationUrls).toHaveLength(1)
        expect(provider.stored?.access_token).not.toBe(before[i])
        yield* Effect.promise(client.close)
      }
    }))
})
