/**
 * Cross-origin access for browser pages (off unless configured): an origin on the explicit list that also passes the
 * DNS-rebinding guard gets its preflight (`OPTIONS` with `Access-Control-Request-Method`) answered 204, and its
 * answers carry `Access-Control-Allow-Origin` with the MCP response headers exposed. Any other preflight is refused
 * 403, and any other answer carries no grant. CORS only lets a page read what the guard already let through: the
 * guard (and authentication) still refuse what they refuse.
 */
import { McpError } from "@effect-mcp/schema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Incoming, Reply, RequestHead } from "./exchange.js"
import * as Replies from "./reply.js"
import type { Door } from "./requestGuard.js"
import type { Route } from "./routes.js"

/** Cross-origin access for browser pages on other origins (off unless given). */
export interface CorsOptions {
  /**
   * The origins whose pages may call the endpoint, exactly as a browser sends them (`https://app.example.com`,
   * `http://localhost:5173`); there is no wildcard. An origin must also pass the Origin guard: one that is not a
   * localhost origin belongs in `allowedOrigins` too.
   */
  readonly allowedOrigins: ReadonlyArray<string>
  /** The methods a preflight may ask for (default GET, POST, DELETE). */
  readonly allowedMethods?: ReadonlyArray<string>
  /**
   * Request headers allowed beyond the ones MCP uses (`Content-Type`, `Accept`, `Authorization`, `Mcp-Session-Id`,
   * `Mcp-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Last-Event-ID`) and trace context
   * (`traceparent`, `tracestate`, `b3`).
   */
  readonly allowedHeaders?: ReadonlyArray<string>
  /** Response headers exposed beyond `Mcp-Session-Id`, `Mcp-Protocol-Version` and `WWW-Authenticate`. */
  readonly exposedHeaders?: ReadonlyArray<string>
  /** Whether pages may send cookies and read the answers (`Access-Control-Allow-Credentials`; default false). */
  readonly allowCredentials?: boolean
  /** How long a browser may keep a preflight's answer (default 10 minutes). */
  readonly maxAge?: Duration.DurationInput
}

/** The request headers MCP's clients send, and trace context (which `@effect/platform`'s HttpClient adds), lower case. */
const mcpRequestHeaders = [
  "accept",
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-method",
  "mcp-name",
  "mcp-protocol-version",
  "mcp-session-id",
  "traceparent",
  "tracestate",
  "b3"
]

/** The response headers a page needs to read. */
const mcpExposedHeaders = ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate"]

const defaultMethods = ["GET", "POST", "DELETE"]

const refusal = Replies.error(403, McpError.serverError("Forbidden: cross-origin request not allowed"))

const preflightVary = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"

/** A route's answers with CORS: preflights answered, grants added. */
export type CorsRoute = (route: Route) => Route

/** What CORS adds to an endpoint's routes, given the DNS-rebinding checks an origin must also pass. */
export const make = (options: CorsOptions, door: Door): CorsRoute => {
  const origins = new Set(options.allowedOrigins)
  const methods = (options.allowedMethods ?? defaultMethods).map((m) => m.toUpperCase())
  const headers = new Set([...mcpRequestHeaders, ...(options.allowedHeaders ?? []).map((h) => h.toLowerCase())])
  const exposed = [...mcpExposedHeaders, ...(options.exposedHeaders ?? [])].join(", ")
  const maxAge = String(Math.floor(Duration.toSeconds(options.maxAge ?? Duration.minutes(10))))
  const credentials: Record<string, string> = options.allowCredentials === true
    ? { "access-control-allow-credentials": "true" }
    : {}

  /** The origin a request may be granted: on the list, and through the guard. */
  const granted = (request: RequestHead): string | undefined => {
    const origin = request.headers["origin"]
    return origin !== undefined && origins.has(origin) && door(request) === undefined ? origin : undefined
  }

  const withVary = (reply: Reply, vary: string, extra: Record<string, string>): Reply => {
    const before = reply.headers["vary"]
    return {
      ...reply,
      headers: { ...reply.headers, ...extra, vary: before === undefined ? vary : `${before}, ${vary}` }
    }
  }

  /** Adds the grant (or only `Vary: Origin`) to an answer. */
  const decorate = (request: RequestHead, reply: Reply): Reply => {
    const origin = granted(request)
    return withVary(
      reply,
      "Origin",
      origin === undefined
        ? {}
        : { "access-control-allow-origin": origin, "access-control-expose-headers": exposed, ...credentials }
    )
  }

  /** Answers a preflight for a route that serves `routeMethods`. */
  const preflight = (request: RequestHead, routeMethods: ReadonlyArray<string>): Reply => {
    const origin = granted(request)
    const method = request.headers["access-control-request-method"] ?? ""
    const asked = (request.headers["access-control-request-headers"] ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== "")
    const allowed = origin !== undefined && routeMethods.includes(method) &&
      asked.every((h) => headers.has(h) || /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(h))
    if (!allowed) return withVary(refusal, preflightVary, {})
    return withVary({ status: 204, headers: {} }, preflightVary, {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": routeMethods.join(", "),
      ...(asked.length === 0 ? {} : { "access-control-allow-headers": asked.join(", ") }),
      "access-control-max-age": maxAge,
      ...credentials
    })
  }

  return (route) => {
    const routeMethods = route.method === undefined ? methods : methods.filter((m) => m === route.method)
    const missing = Effect.succeed(Replies.notFound)
    return {
      path: route.path,
      // Every method reaches the route, so that its preflight does; the route's own method is checked here.
      method: undefined,
      handle: (request: Incoming) => {
        if (
          request.method === "OPTIONS" && request.headers["origin"] !== undefined &&
          request.headers["access-control-request-method"] !== undefined
        ) return Effect.succeed(preflight(request, routeMethods))
        const answer = route.method !== undefined && route.method !== request.method ? missing : route.handle(request)
        return Effect.map(answer, (reply) => decorate(request, reply))
      }
    }
  }
}
