/**
 * Every answer of an authorization server is hostile input: a protected resource and an authorization server on
 * 127.0.0.1 that misbehave one way per test (metadata that is not JSON, too large, for another resource or issuer,
 * without PKCE S256; a token endpoint that answers garbage or an OAuth error, or never answers; a redirect with a
 * wrong `state` or `iss`). Each gives a typed error naming what went wrong, never a secret, and leaves the request
 * answered with the server's 401; nothing is redeemed after a bad redirect. A well-behaved server is logged in to,
 * and the token only ever goes to the MCP server's origin.
 */
import { InteractiveStep, OAuthClient, OAuthError, TokenStore } from "@effect-mcp/auth"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** How one route answers: a status, headers and a body, or nothing at all (`hang`). */
type Route = (request: IncomingMessage, url: URL, base: string) => {
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly hang?: true
}

const json = (value: unknown) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(value) })

/** What the routes of a well-behaved server answer; each test replaces some. */
const goodRoutes: Record<string, Route> = {
  "/mcp": (request, _url, base) =>
    request.headers.authorization === "Bearer good-token"
      ? json({ ok: true })
      : { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${base}/prm"` } },
  "/prm": (_r, _u, base) => json({ resource: `${base}/mcp`, authorization_servers: [`${base}/as`] }),
  "/.well-known/oauth-authorization-server/as": (_r, _u, base) =>
    json({
      issuer: `${base}/as`,
      authorization_endpoint: `${base}/as/authorize`,
      token_endpoint: `${base}/as/token`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true
    }),
  "/as/authorize": (_r, url, base) => {
    const back = new URL(url.searchParams.get("redirect_uri")!)
    back.searchParams.set("code", "secret-code")
    back.searchParams.set("state", url.searchParams.get("state") ?? "")
    back.searchParams.set("iss", `${base}/as`)
    return { status: 302, headers: { location: back.href } }
  },
  "/as/token": () => json({ access_token: "good-token", token_type: "Bearer", expires_in: 3600 })
}

/** A server with `routes` over the good ones, for the test's scope; it counts the requests to each path. */
const hostile = (routes: Record<string, Route>) =>
  Effect.gen(function*() {
    const hits = new Map<string, number>()
    const all = { ...goodRoutes, ...routes }
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1)
      request.resume()
      request.on("end", () => {
        const route = all[url.pathname]
        const answer = route === undefined ? { status: 404 } : route(request, url, base)
        if ("hang" in answer) return
        response.writeHead(answer.status ?? 200, answer.headers).end(answer.body)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.sync(() => server.closeAllConnections()).pipe(
          Effect.zipRight(Effect.async<void>((resume) => void server.close(() => resume(Effect.void))))
        )
    )
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return { base, hits }
  })

/** Sends one POST to `url` through the OAuth middleware; the answer's status and the flow's failures. */
const attempt = (url: string, options: OAuthClient.Options = {}) =>
  Effect.gen(function*() {
    const failures = yield* Ref.make<ReadonlyArray<OAuthError.OAuthError>>([])
    const pools = yield* McpNodeHttpClient.agents
    const execute = yield* OAuthClient.wrap(
      McpNodeHttpClient.execute(pools),
      { timeoutMs: 2_000, client: { clientId: "pre-registered" }, ...options },
      (error) => Ref.update(failures, (all) => [...all, error])
    )
    const response = yield* execute({ method: "POST", url, headers: { accept: "application/json" }, body: "{}" })
    return { status: response.status, failures: yield* Ref.get(failures) }
  }).pipe(Effect.provide(Layer.merge(TokenStore.layerMemory, InteractiveStep.layerHeadless())))

/** The one failure of an attempt; it never quotes a secret. */
const onlyFailure = (got: { readonly failures: ReadonlyArray<OAuthError.OAuthError> }) => {
  expect(got.failures).toHaveLength(1)
  const failure = got.failures[0]!
  for (const secret of ["secret-code", "good-token", "code_verifier"]) expect(failure.message).not.toContain(secret)
  return failure
}

describe("OAuthClient with a hostile server", () => {
  it.scopedLive("a well-behaved server: the request is retried with the token, unseen by the caller", () =>
    Effect.gen(function*() {
      const { base, hits } = yield* hostile({})
      const got = yield* attempt(`${base}/mcp`)
      expect(got).toEqual({ status: 200, failures: [] })
      expect(hits.get("/as/token")).toBe(1)
    }))

  it.scopedLive("resource metadata that is not JSON", () =>
    Effect.gen(function*() {
      const { base } = yield* hostile({ "/prm": () => ({ body: "<html>" }) })
      const got = yield* attempt(`${base}/mcp`)
      expect(got.status).toBe(401)
      const failure = onlyFailure(got)
      expect(failure).toBeInstanceOf(OAuthError.AuthServerError)
      expect(failure).toMatchObject({ stage: "resource-metadata" })
      expect(failure.message).toContain("not JSON")
    }))

  it.scopedLive("resource metadata larger than the bound", () =>
    Effect.gen(function*() {
      const { base } = yield* hostile({ "/prm": () => ({ body: `{"pad":"${"x".repeat(100_000)}"}` }) })
      const failure = onlyFailure(yield* attempt(`${base}/mcp`, { maxResponseBytes: 10_000 }))
      expect(failure.message).toContain("more than 10000 bytes")
    }))

  it.scopedLive("resource metadata for another resource", () =>
    Effect.gen(function*() {
      const { base } = yield* hostile({
        "/prm": (_r, _u, own) =>
          json({ resource: "https://elsewhere.example/mcp", authorization_servers: [`${own}/as`] })
      })
      expect(onlyFailure(yield* attempt(`${base}/mcp`))).toBeInstanceOf(OAuthError.AuthorizationRefused)
    }))

  it.scopedLive("authorization server metadata of another issuer, or with a wrong type", () =>
    Effect.gen(function*() {
      const { base } = yield* hostile({
        "/.well-known/oauth-authorization-server/as": () =>
          json({ issuer: "https://evil.example", token_endpoint: "https://evil.example/token" })
      })
      const failure = onlyFailure(yield* attempt(`${base}/mcp`))
      expect(failure).toMatchObject({ stage: "authorization-server-metadata" })
      expect(failure.message).toContain("names the issuer https://evil.example")

      const typed = yield* hostile({
        "/.well-known/oauth-authorization-server/as": () => json({ issuer: 42, token_endpoint: "javascript:alert(1)" })
      })
      expect(onlyFailure(yield* attempt(`${typed.base}/mcp`)).message).toContain("not valid")
    }))

  it.scopedLive("an authorization server without PKCE S256 is refused before the user is sent to it", () =>
    Effect.gen(function*() {
      const { base, hits } = yield* hostile({
        "/.well-known/oauth-authorization-server/as": (_r, _u, base) =>
          json({
            issuer: `${base}/as`,
            authorization_endpoint: `${base}/as/authorize`,
            token_endpoint: `${base}/as/token`,
            code_challenge_methods_supported: ["plain"]
          })
      })
      const failure = onlyFailure(yield* attempt(`${base}/mcp`))
      expect(failure).toBeInstanceOf(OAuthError.AuthorizationRefused)
      expect(failure.message).toContain("S256")
      expect(hits.get("/as/authorize")).toBeUndefined()
    }))

  it.scopedLive("a redirect with a wrong state, or a wrong iss: the code is never redeemed", () =>
    Effect.gen(function*() {
      for (const [name, value] of [["state", "forged"], ["iss", "https://evil.example"]] as const) {
        const { base, hits } = yield* hostile({
          "/as/authorize": (_r, url, base) => {
            const back = new URL(url.searchParams.get("redirect_uri")!)
            back.searchParams.set("code", "secret-code")
            back.searchParams.set("state", url.searchParams.get("state") ?? "")
            back.searchParams.set("iss", `${base}/as`)
            back.searchParams.set(name, value)
            return { status: 302, headers: { location: back.href } }
          }
        })
        const failure = onlyFailure(yield* attempt(`${base}/mcp`))
        expect(failure).toBeInstanceOf(OAuthError.AuthorizationRefused)
        expect(failure.message).toContain(name)
        expect(hits.get("/as/token")).toBeUndefined()
      }
    }))

  it.scopedLive("a token endpoint that answers garbage, an answer without a token, an OAuth error, or nothing", () =>
    Effect.gen(function*() {
      const garbage = yield* hostile({ "/as/token": () => ({ body: "\u0000\u0001 not json" }) })
      const notJson = onlyFailure(yield* attempt(`${garbage.base}/mcp`))
      expect(notJson).toMatchObject({ _tag: "AuthServerError", stage: "token" })

      const empty = yield* hostile({ "/as/token": () => json({ token_type: "Bearer" }) })
      expect(onlyFailure(yield* attempt(`${empty.base}/mcp`)).message).toContain("access_token")

      const refused = yield* hostile({
        "/as/token": () => ({ status: 400, ...json({ error: "invalid_grant", error_description: "code reused" }) })
      })
      expect(onlyFailure(yield* attempt(`${refused.base}/mcp`))).toMatchObject({
        _tag: "OAuthErrorResponse",
        error: "invalid_grant",
        description: "code reused"
      })

      const silent = yield* hostile({ "/as/token": () => ({ hang: true }) })
      const timedOut = onlyFailure(yield* attempt(`${silent.base}/mcp`, { timeoutMs: 300 }))
      expect(timedOut.message).toContain("did not answer within 300 ms")
    }))

  it.scopedLive("the token goes only to the MCP server's origin", () =>
    Effect.gen(function*() {
      const { base } = yield* hostile({})
      const other = yield* hostile({
        "/mcp": (request) => json({ authorization: request.headers.authorization ?? null })
      })
      const pools = yield* McpNodeHttpClient.agents
      const execute = yield* OAuthClient.wrap(McpNodeHttpClient.execute(pools), {
        client: { clientId: "pre-registered" }
      })
      const post = (url: string) => execute({ method: "POST", url, headers: {}, body: "{}" })
      expect((yield* post(`${base}/mcp`)).status).toBe(200)
      const elsewhere = yield* Effect.flatMap(post(`${other.base}/mcp`), (response) => response.text)
      expect(JSON.parse(elsewhere)).toEqual({ authorization: null })
    }).pipe(Effect.provide(Layer.merge(TokenStore.layerMemory, InteractiveStep.layerHeadless()))))
})
