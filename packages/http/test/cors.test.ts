/**
 * The `cors` option over real loopback HTTP (on both server adapters): off by default; when on, a listed origin that
 * passes the Origin guard gets its preflight answered and its answers readable, with the MCP headers exposed; hostile
 * origins (unlisted, listed but refused by the guard, `null`, near-misses), methods and headers are refused, and the
 * guard and authentication still refuse what they refuse.
 */
import { McpHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { initialize, postHeaders, rawRequest, serve } from "./helpers.js"

const page = "http://localhost:5173"

/** A preflight from `origin` for `method` with `headers`, sent to `url`. */
const preflight = (
  url: string,
  origin: string,
  method = "POST",
  headers?: string,
  extra: Record<string, string> = {}
) =>
  rawRequest(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      ...(headers === undefined ? {} : { "access-control-request-headers": headers }),
      ...extra
    }
  })

/** An initialize POST from `origin`. */
const initFrom = (url: string, origin: string, extra: Record<string, string> = {}) =>
  rawRequest(url, {
    method: "POST",
    headers: postHeaders({ origin, ...extra }),
    body: JSON.stringify(initialize("2025-11-25"))
  })

const mcpHeaders = "content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, mcp-param-region, " +
  "last-event-id, authorization, traceparent"

describe("CORS", () => {
  it.scopedLive("is off by default: no preflight answer and no grant", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const pre = yield* preflight(url, page)
      expect(pre.status).toBe(405)
      expect(pre.headers["access-control-allow-origin"]).toBeUndefined()
      const post = yield* initFrom(url, page)
      expect(post.status).toBe(200)
      expect(post.headers["access-control-allow-origin"]).toBeUndefined()
      expect(post.headers["vary"]).toBeUndefined()
    }))

  it.scopedLive("a listed origin's preflight is answered and its answers are readable, MCP headers exposed", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ cors: { allowedOrigins: [page] } })
      const pre = yield* preflight(url, page, "POST", mcpHeaders)
      expect(pre.status).toBe(204)
      expect(pre.headers["access-control-allow-origin"]).toBe(page)
      expect(pre.headers["access-control-allow-methods"]).toBe("GET, POST, DELETE")
      expect(pre.headers["access-control-allow-headers"]).toBe(mcpHeaders)
      expect(pre.headers["access-control-max-age"]).toBe("600")
      expect(pre.headers["access-control-allow-credentials"]).toBeUndefined()
      expect(pre.headers["vary"]).toContain("Origin")
      const post = yield* initFrom(url, page)
      expect(post.status).toBe(200)
      expect(post.headers["access-control-allow-origin"]).toBe(page)
      expect(post.headers["access-control-expose-headers"]).toBe(
        "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
      )
      expect(post.headers["vary"]).toBe("Origin")
      expect(post.headers["mcp-session-id"]).toMatch(/^[0-9a-f]{32}$/)
      // GET and DELETE of the session carry the grant too.
      const session = { "mcp-session-id": String(post.headers["mcp-session-id"]), "mcp-protocol-version": "2025-11-25" }
      const ended = yield* rawRequest(url, { method: "DELETE", headers: { origin: page, ...session } })
      expect(ended.status).toBe(200)
      expect(ended.headers["access-control-allow-origin"]).toBe(page)
    }))

  it.scopedLive("hostile origins get no grant, and the guard still refuses what it refuses", () =>
    Effect.gen(function*() {
      const listedButForeign = "https://evil.example"
      const { url } = yield* serve({ cors: { allowedOrigins: [page, listedButForeign, "null", "*"] } })
      // Listed for CORS, but the Origin guard (localhost origins by default) refuses it: no preflight, no request.
      const foreignPre = yield* preflight(url, listedButForeign)
      expect(foreignPre.status).toBe(403)
      expect(foreignPre.headers["access-control-allow-origin"]).toBeUndefined()
      const foreignPost = yield* initFrom(url, listedButForeign)
      expect(foreignPost.status).toBe(403)
      expect(foreignPost.headers["access-control-allow-origin"]).toBeUndefined()
      // `null` (sandboxed frames, files) and `*` are refused by the guard whatever the list says.
      for (const origin of ["null", "*"]) {
        const pre = yield* preflight(url, origin)
        expect(pre.status).toBe(403)
        expect(pre.headers["access-control-allow-origin"]).toBeUndefined()
      }
      // Through the guard (a localhost origin) but not listed: the guard lets the request in, CORS grants nothing.
      for (const origin of ["http://localhost:5174", "http://LOCALHOST:5173", `${page}/`, "https://localhost:5173"]) {
        const pre = yield* preflight(url, origin)
        expect(pre.status).toBe(403)
        expect(pre.headers["access-control-allow-origin"]).toBeUndefined()
        const post = yield* initFrom(url, origin)
        expect(post.headers["access-control-allow-origin"]).toBeUndefined()
        expect(post.headers["vary"]).toBe("Origin")
      }
      // A listed origin asking for a method or a header that is not allowed.
      expect((yield* preflight(url, page, "PUT")).status).toBe(403)
      expect((yield* preflight(url, page, "post")).status).toBe(403)
      expect((yield* preflight(url, page, "POST", "content-type, x-evil")).status).toBe(403)
      expect((yield* preflight(url, page, "POST", "mcp-param-bad name")).status).toBe(403)
      // A listed origin behind a Host the guard refuses (DNS rebinding).
      const rebound = yield* preflight(url, page, "POST", undefined, { host: "attacker.example" })
      expect(rebound.status).toBe(403)
      expect(rebound.headers["access-control-allow-origin"]).toBeUndefined()
      // An OPTIONS that is not a preflight is the endpoint's own answer (405), without a grant.
      const plain = yield* rawRequest(url, { method: "OPTIONS", headers: { origin: page } })
      expect(plain.status).toBe(405)
    }))

  it.scopedLive("an origin of another host is granted once it is in both allowedOrigins and the CORS list", () =>
    Effect.gen(function*() {
      const app = "https://app.example.com"
      const { url } = yield* serve({
        allowedOrigins: [app],
        cors: {
          allowedOrigins: [app],
          allowedMethods: ["POST"],
          allowedHeaders: ["X-Client"],
          exposedHeaders: ["X-Trace"],
          allowCredentials: true,
          maxAge: "1 minute"
        }
      })
      const pre = yield* preflight(url, app, "POST", "x-client, content-type")
      expect(pre.status).toBe(204)
      expect(pre.headers["access-control-allow-methods"]).toBe("POST")
      expect(pre.headers["access-control-allow-credentials"]).toBe("true")
      expect(pre.headers["access-control-max-age"]).toBe("60")
      expect((yield* preflight(url, app, "GET")).status).toBe(403)
      const post = yield* initFrom(url, app)
      expect(post.status).toBe(200)
      expect(post.headers["access-control-allow-origin"]).toBe(app)
      expect(post.headers["access-control-allow-credentials"]).toBe("true")
      expect(post.headers["access-control-expose-headers"]).toContain("X-Trace")
      // The default localhost origins are no longer allowed by the guard once allowedOrigins is given.
      expect((yield* preflight(url, page)).status).toBe(403)
    }))

  it.scopedLive("a preflight needs no credentials; a refused request's challenge is readable by the page", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({
        cors: { allowedOrigins: [page] },
        authenticate: McpHttpServer.bearer(() =>
          Effect.fail(new McpHttpServer.Unauthorized({ reason: "bad token", error: "invalid_token" }))
        ),
        protectedResource: { resource: "http://127.0.0.1/mcp", authorizationServers: ["http://127.0.0.1:1"] }
      })
      const pre = yield* preflight(url, page, "POST", "authorization, content-type")
      expect(pre.status).toBe(204)
      const post = yield* initFrom(url, page, { authorization: "Bearer nope" })
      expect(post.status).toBe(401)
      expect(post.headers["www-authenticate"]).toContain("resource_metadata")
      expect(post.headers["access-control-allow-origin"]).toBe(page)
      expect(post.headers["access-control-expose-headers"]).toContain("WWW-Authenticate")
      // The metadata endpoint answers a listed page too (GET only).
      const metadataUrl = new URL("/.well-known/oauth-protected-resource/mcp", url).href
      expect((yield* preflight(metadataUrl, page, "GET")).status).toBe(204)
      expect((yield* preflight(metadataUrl, page, "POST")).status).toBe(403)
      const metadata = yield* rawRequest(metadataUrl, { method: "GET", headers: { origin: page } })
      expect(metadata.status).toBe(200)
      expect(metadata.headers["access-control-allow-origin"]).toBe(page)
      // Its own method is still checked once every method reaches it.
      expect((yield* rawRequest(metadataUrl, { method: "POST", headers: { origin: page } })).status).toBe(404)
    }))

  it.scopedLive("the legacy HTTP+SSE endpoints get the same treatment", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ cors: { allowedOrigins: [page] }, legacySse: true })
      const sse = new URL("/sse", url).href
      const pre = yield* preflight(sse, page, "GET", "last-event-id")
      expect(pre.status).toBe(204)
      expect(pre.headers["access-control-allow-methods"]).toBe("GET")
    }))
})
