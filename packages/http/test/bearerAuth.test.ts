/**
 * Bearer verification and required scopes over real HTTP, against a real authorization server (oidc-provider, see
 * examples/oauth-server) started by each test: JWT access tokens checked against its discovered JWKS, opaque tokens by its
 * RFC 7662 introspection endpoint; a tool, a prompt and a resource that require `mcp:write`, refused with 403
 * `insufficient_scope` to a token without it; 401 for a token that is expired, for another resource, from another
 * issuer or tampered with; 503 when the issuer cannot be reached or answers garbage.
 */
import * as AuthServer from "@effect-mcp-examples/oauth-server"
import { McpServer, RequestContext, Transport } from "@effect-mcp/core"
import { BearerAuth, type McpHttpServer, McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import { connect, initialize, listenOnLoopback, post } from "./helpers.js"

const write = ["mcp:write"]

/** echo, a prompt and a resource that require `mcp:write`; whoami that anyone may call. */
const registrations = Layer.mergeAll(
  McpServer.tool({
    name: "echo",
    scopes: write,
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(text)
  }),
  McpServer.tool({
    name: "whoami",
    input: Schema.Struct({}),
    handler: () => Effect.map(RequestContext.RequestContext, (ctx) => JSON.stringify(ctx.auth ?? null))
  }),
  McpServer.prompt({ name: "secret-prompt", scopes: write, handler: () => Effect.succeed("psst") }),
  McpServer.resource({ uri: "test://secret", name: "secret", scopes: write, read: Effect.succeed("hidden") })
).pipe(Layer.provideMerge(McpServer.layer({ name: "bearer-test", version: "1.0.0" })))

/** Serves the endpoint with the hook `authenticate(url)` (url: its own URL) and its metadata naming `issuer`. */
const serve = (issuer: string, authenticate: (url: string) => McpHttpServer.Authenticate) =>
  Effect.gen(function*() {
    const layer = McpNodeHttpServer.layer(({ origin }) => ({
      authenticate: authenticate(`${origin}/mcp`),
      protectedResource: { resource: `${origin}/mcp`, authorizationServers: [issuer] }
    })).pipe(Layer.provideMerge(registrations))
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    return Context.get(context, McpNodeHttpServer.Address).url
  })

const jwtServer = (issuer: string) =>
  serve(issuer, (url) => BearerAuth.jwt({ issuer, audience: url, clockTolerance: 0 }))

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/** An initialize POST with `token`: its status and its challenge. */
const attempt = (url: string, token: string) =>
  Effect.map(post(url, initialize("2025-11-25"), bearer(token)), (response) => ({
    status: response.status,
    challenge: response.headers.get("www-authenticate") ?? ""
  }))

describe("BearerAuth.jwt against oidc-provider", () => {
  it.scopedLive("a token with mcp:write calls echo; the identity reaches the handler", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* jwtServer(auth.issuer)
      const token = yield* auth.token({ resource: url, scope: "mcp:read mcp:write" })
      const client = yield* connect(url, {}, { token: Effect.succeed(token) })
      expect(text(yield* client.callTool("echo", { text: "hi" }))).toBe("hi")
      const who = JSON.parse(text(yield* client.callTool("whoami", {})))
      expect(who).toMatchObject({ token, clientId: "machine", scopes: ["mcp:read", "mcp:write"] })
      expect(who.extra).toMatchObject({ iss: auth.issuer, aud: url })
      expect((yield* client.getPrompt("secret-prompt")).messages).toHaveLength(1)
      expect((yield* client.readResource("test://secret")).contents).toHaveLength(1)
    }))

  it.scopedLive("a token without mcp:write: 403 insufficient_scope, the client's typed Forbidden", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* jwtServer(auth.issuer)
      const token = yield* auth.token({ resource: url, scope: "mcp:read" })
      for (const revision of ["2025-11-25", undefined] as const) {
        const client = yield* connect(url, revision === undefined ? {} : { revision }, {
          token: Effect.succeed(token)
        })
        expect(text(yield* client.callTool("whoami", {}))).toContain("machine")
        const refusals: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          client.callTool("echo", { text: "hi" }),
          client.getPrompt("secret-prompt"),
          client.readResource("test://secret")
        ]
        for (const refused of refusals) {
          const error = yield* Effect.flip(refused)
          expect(error).toBeInstanceOf(Transport.Forbidden)
          const challenge = (error as Transport.Forbidden).wwwAuthenticate ?? ""
          expect(challenge).toContain("error=\"insufficient_scope\"")
          expect(challenge).toContain("scope=\"mcp:write\"")
          expect(challenge).toContain(
            `resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`
          )
          expect(challenge).not.toContain(token)
        }
        // The 403's body is a JSON-RPC error with the request's id.
        const raw = yield* post(url, {
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "hi" } }
        }, { ...bearer(token), "mcp-protocol-version": "2025-11-25" })
        expect(raw.status).toBe(403)
        expect(yield* Effect.promise(() => raw.json())).toMatchObject({ id: 7, error: { code: -32001 } })
      }
    }))

  it.scopedLive("expired, for another resource, from another issuer, tampered with: 401 invalid_token", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const other = yield* AuthServer.start
      const url = yield* jwtServer(auth.issuer)
      const good = yield* auth.token({ resource: url, scope: "mcp:write" })
      const [header, payload, signature] = good.split(".")
      const flipped = `${signature!.slice(0, -2)}${signature!.endsWith("AA") ? "BB" : "AA"}`
      const short = yield* auth.token({ resource: url, scope: "mcp:write", client: AuthServer.clients.short })
      const cases = {
        "another resource": yield* auth.token({ resource: "http://127.0.0.1:1/elsewhere", scope: "mcp:write" }),
        "another issuer": yield* other.token({ resource: url, scope: "mcp:write" }),
        "a tampered signature": `${header}.${payload}.${flipped}`,
        "a tampered payload": `${header}.${
          Buffer.from(JSON.stringify({ scope: "mcp:write" })).toString("base64url")
        }.${signature}`,
        "not a JWT": "opaque-garbage"
      }
      const reasons = {
        "another resource": "The token is not for this resource",
        "another issuer": "The token was issued by another issuer",
        "a tampered signature": "The token's signature does not verify",
        "a tampered payload": "The token was issued by another issuer",
        "not a JWT": "The token is not a well-formed JWT"
      }
      for (const [label, token] of Object.entries(cases)) {
        const { challenge, status } = yield* attempt(url, token)
        expect({ label, status }).toEqual({ label, status: 401 })
        expect(challenge).toContain("error=\"invalid_token\"")
        expect(challenge).toContain(reasons[label as keyof typeof reasons])
        expect(challenge).not.toContain(token)
      }
      // Our client sees the refusal as its typed Unauthorized, with the challenge.
      const refused = yield* Effect.either(connect(url, {}, { token: Effect.succeed(cases["another issuer"]) }))
      expect(Either.isLeft(refused) && JSON.stringify(refused.left)).toContain("Unauthorized")
      // A one-second token, once expired (the reason says it is the expiry that is refused, not the token).
      yield* Effect.sleep("2200 millis")
      const expired = yield* attempt(url, short)
      expect(expired.status).toBe(401)
      expect(expired.challenge).toContain("The token has expired")
      // No token at all: 401 naming the metadata.
      const none = yield* Effect.promise(() => fetch(url, { method: "POST" }))
      expect(none.status).toBe(401)
    }))

  it.scopedLive("an issuer that cannot be reached, or answers garbage, is 503 (not the token's fault)", () =>
    Effect.gen(function*() {
      const garbage = createServer((request, response) => {
        if (request.url?.startsWith("/.well-known/")) response.end("{not json")
        else response.end("[]")
      })
      const port = yield* listenOnLoopback(garbage)
      const hostile = `http://127.0.0.1:${port}`
      const closed = `http://127.0.0.1:${yield* listenOnLoopback(createServer()).pipe(Effect.scoped)}`
      const auth = yield* AuthServer.start
      const token = (resource: string) => auth.token({ resource, scope: "mcp:write" })
      for (const issuer of [hostile, closed]) {
        const url = yield* jwtServer(issuer)
        // A token whose iss is the unusable issuer gets as far as the key lookup.
        const forged = yield* token(url)
        const [h, , s] = forged.split(".")
        const claims = { iss: issuer, aud: url, exp: Math.floor(Date.now() / 1000) + 60 }
        const asIfFrom = `${h}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${s}`
        const response = yield* post(url, initialize("2025-11-25"), bearer(asIfFrom))
        expect(response.status).toBe(503)
        expect(response.headers.get("retry-after")).toBe("5")
        expect(yield* Effect.promise(() => response.text())).not.toContain(asIfFrom)
      }
      // A key set that is not one.
      const url = yield* serve(
        auth.issuer,
        (u) => BearerAuth.jwt({ issuer: auth.issuer, audience: u, jwksUrl: hostile })
      )
      expect((yield* post(url, initialize("2025-11-25"), bearer(yield* token(url)))).status).toBe(503)
    }))

  it.scopedLive("a key set that is down is fetched once per retry window, not once per request", () =>
    Effect.gen(function*() {
      let fetches = 0
      const down = createServer((_, response) => {
        fetches++
        response.writeHead(500).end()
      })
      const jwksUrl = `http://127.0.0.1:${yield* listenOnLoopback(down)}/jwks`
      const auth = yield* AuthServer.start
      const url = yield* serve(auth.issuer, (u) => BearerAuth.jwt({ issuer: auth.issuer, audience: u, jwksUrl }))
      const token = yield* auth.token({ resource: url, scope: "mcp:write" })
      for (let i = 0; i < 5; i++) {
        expect((yield* post(url, initialize("2025-11-25"), bearer(token))).status).toBe(503)
      }
      expect(fetches).toBe(1)
    }))
})

describe("BearerAuth.introspection against oidc-provider", () => {
  it.scopedLive("an opaque token is introspected: active with mcp:write calls echo, without it 403, inactive 401", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* serve(auth.issuer, (audience) => {
        auth.opaque.add(audience)
        return BearerAuth.introspection({
          endpoint: `${auth.issuer}/token/introspection`,
          clientId: AuthServer.clients.resourceServer.id,
          clientSecret: AuthServer.clients.resourceServer.secret,
          audience
        })
      })
      const token = yield* auth.token({ resource: url, scope: "mcp:write" })
      expect(token.split(".")).toHaveLength(1)
      const client = yield* connect(url, {}, { token: Effect.succeed(token) })
      expect(text(yield* client.callTool("echo", { text: "opaque" }))).toBe("opaque")
      expect(JSON.parse(text(yield* client.callTool("whoami", {})))).toMatchObject({
        clientId: "machine",
        scopes: ["mcp:write"]
      })
      const reader = yield* auth.token({ resource: url, scope: "mcp:read" })
      const readerClient = yield* connect(url, {}, { token: Effect.succeed(reader) })
      expect(yield* Effect.flip(readerClient.callTool("echo", { text: "no" }))).toBeInstanceOf(Transport.Forbidden)
      const inactive = yield* attempt(url, "not-a-token-the-server-issued")
      expect(inactive.status).toBe(401)
      expect(inactive.challenge).toContain("The token is not active")
      // Another resource's token is active but not for us.
      auth.opaque.add("http://127.0.0.1:1/elsewhere")
      const foreign = yield* attempt(
        url,
        yield* auth.token({ resource: "http://127.0.0.1:1/elsewhere", scope: "mcp:write" })
      )
      expect(foreign).toMatchObject({ status: 401 })
      expect(foreign.challenge).toContain("The token is not for this resource")
    }))
})
