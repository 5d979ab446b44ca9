/**
 * The interactive step of the authorization code flow: the user agent is given the authorization URL, and the
 * redirect back to the client brings the code, the `state` and (RFC 9207) the `iss`. Two Layers: `layerLoopback`
 * receives the redirect on a listener of its own on 127.0.0.1 (a random port by default) after showing the URL
 * (printed on stderr, or handed to a function that opens a browser); `layerHeadless` follows the authorization
 * server's redirects itself, for tests and automation against a server that asks the user nothing.
 */
import type { McpHttpClient } from "@effect-mcp/http"
import { McpNodeHttpClient } from "@effect-mcp/http"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import { InteractionFailed, OAuthErrorResponse } from "./OAuthError.js"

/** What the redirect back to the client carried. */
export interface Callback {
  readonly code: string
  readonly state: string | undefined
  readonly iss: string | undefined
}

/** One authorization under way: the redirect URI it uses, and the step that sends the user and awaits the redirect. */
export interface Pending {
  readonly redirectUri: string
  readonly complete: (authorizationUrl: string) => Effect.Effect<Callback, InteractionFailed | OAuthErrorResponse>
}

/** The operations of the interactive step. */
export interface InteractiveStepService {
  /** Prepares one authorization (a listener lives until the scope closes). */
  readonly begin: Effect.Effect<Pending, InteractionFailed, Scope.Scope>
}

/** The interactive step an OAuth client uses for the authorization code flow. */
export class InteractiveStep extends Context.Tag("@effect-mcp/auth/InteractiveStep")<
  InteractiveStep,
  InteractiveStepService
>() {}

/** Reads the redirect's query: the code, or the authorization server's error (RFC 6749 §4.1.2.1). */
export const fromRedirect = (url: URL): Effect.Effect<Callback, InteractionFailed | OAuthErrorResponse> => {
  const query = url.searchParams
  const error = query.get("error")
  if (error !== null) {
    const description = query.get("error_description")
    return Effect.fail(
      new OAuthErrorResponse({
        stage: "authorization",
        error: error.slice(0, 100),
        description: description === null ? undefined : description.slice(0, 200)
      })
    )
  }
  const code = query.get("code")
  return code === null || code === ""
    ? Effect.fail(new InteractionFailed({ reason: "the redirect carried neither a code nor an error" }))
    : Effect.succeed({ code, state: query.get("state") ?? undefined, iss: query.get("iss") ?? undefined })
}

/** How the loopback step shows the URL and waits. */
export interface LoopbackOptions {
  /** The port on 127.0.0.1 (default 0: a random free port). */
  readonly port?: number
  /** The redirect's path (default `/callback`). */
  readonly path?: string
  /** How long to wait for the redirect (default 5 minutes). */
  readonly timeout?: Duration.DurationInput
  /** Shows the authorization URL to the user (default `printUrl`: on stderr). An opener of the browser goes here. */
  readonly show?: (authorizationUrl: string) => Effect.Effect<void>
}

/**
 * Shows the authorization URL by printing it on stderr, for the person to open in a browser of their own: the
 * default of `layerLoopback`, and how a command without a browser at hand logs in.
 */
export const printUrl = (authorizationUrl: string): Effect.Effect<void> =>
  Console.error(`Open this URL in a browser to sign in:\n  ${authorizationUrl}`)

const page = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${title}. You can close this window.</p>`

/** Receives the redirect on a listener on 127.0.0.1 that lives for one authorization. */
export const makeLoopback = (options: LoopbackOptions = {}): InteractiveStepService => ({
  begin: Effect.gen(function*() {
    const path = options.path ?? "/callback"
    const arrived = yield* Deferred.make<URL>()
    const server = yield* Effect.acquireRelease(
      Effect.async<Http.Server, InteractionFailed>((resume) => {
        const listener = Http.createServer((request, response) => {
          const url = new URL(request.url ?? "/", "http://127.0.0.1")
          if (request.method !== "GET" || url.pathname !== path) {
            response.writeHead(404).end()
            return
          }
          const ok = url.searchParams.has("code")
          response.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8" })
            .end(page(ok ? "Signed in" : "Sign-in failed"))
          Deferred.unsafeDone(arrived, Effect.succeed(url))
        })
        listener.once("error", (cause) => resume(Effect.fail(new InteractionFailed({ reason: cause.message }))))
        listener.listen(options.port ?? 0, "127.0.0.1", () => resume(Effect.succeed(listener)))
      }),
      (listener) => Effect.sync(() => listener.close())
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const redirectUri = `http://127.0.0.1:${port}${path}`
    const show = options.show ?? printUrl
    return {
      redirectUri,
      complete: (authorizationUrl) =>
        show(authorizationUrl).pipe(
          Effect.zipRight(Deferred.await(arrived)),
          Effect.timeoutFail({
            duration: options.timeout ?? Duration.minutes(5),
            onTimeout: () => new InteractionFailed({ reason: "the sign-in was not completed in time" })
          }),
          Effect.flatMap(fromRedirect)
        )
    }
  })
})

/** The loopback step as a Layer. */
export const layerLoopback = (options?: LoopbackOptions): Layer.Layer<InteractiveStep> =>
  Layer.succeed(InteractiveStep, makeLoopback(options))

/** How the headless step reaches the authorization server. */
export interface HeadlessOptions {
  /** The redirect URI it registers and sends (default `http://127.0.0.1/callback`; nothing listens there). */
  readonly redirectUri?: string
  /** How many redirects of the authorization server it follows before the one to the client (default 8). */
  readonly maxRedirects?: number
}

/** The `name=value` pairs of a response's `Set-Cookie` headers. */
const setCookies = (header: string | ReadonlyArray<string> | undefined): ReadonlyArray<readonly [string, string]> =>
  (header === undefined ? [] : typeof header === "string" ? [header] : header).flatMap((line) => {
    const pair = line.split(";")[0] ?? ""
    const at = pair.indexOf("=")
    return at <= 0 ? [] : [[pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const]
  })

/**
 * Follows the authorization server's redirects (over `execute`, keeping the cookies it sets on its own origin, as a
 * browser would) until one goes to the redirect URI, and reads it: for tests and automation against an
 * authorization server that signs the user in without asking anything.
 */
export const makeHeadless = (execute: McpHttpClient.Execute, options: HeadlessOptions = {}): InteractiveStepService => {
  const redirectUri = options.redirectUri ?? "http://127.0.0.1/callback"
  const follow = (
    url: URL,
    origin: string,
    jar: Map<string, string>,
    left: number
  ): Effect.Effect<Callback, InteractionFailed | OAuthErrorResponse> =>
    Effect.suspend(() => {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
      return execute({
        method: "GET",
        url: url.href,
        headers: { accept: "text/html", ...(url.origin === origin && cookie !== "" ? { cookie } : {}) }
      })
    }).pipe(
      Effect.mapError((e) =>
        new InteractionFailed({ reason: `the authorization server could not be reached (${e.reason})` })
      ),
      Effect.flatMap((response) => {
        if (url.origin === origin) {
          const headers = response.headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
          for (const [name, value] of setCookies(headers["set-cookie"])) jar.set(name, value)
        }
        const location = response.headers["location"]
        if (response.status < 300 || response.status >= 400 || location === undefined) {
          return Effect.fail(
            new InteractionFailed({
              reason:
                `the authorization server answered HTTP ${response.status} instead of a redirect (it asks the user something)`
            })
          )
        }
        const next = new URL(location, url)
        if (next.href.startsWith(redirectUri)) return fromRedirect(next)
        return left === 0
          ? Effect.fail(new InteractionFailed({ reason: "too many redirects" }))
          : follow(next, origin, jar, left - 1)
      })
    )
  return {
    begin: Effect.succeed({
      redirectUri,
      complete: (authorizationUrl) => {
        const url = new URL(authorizationUrl)
        return follow(url, url.origin, new Map(), options.maxRedirects ?? 8)
      }
    })
  }
}

/** The headless step as a Layer, over node:http keep-alive agents of its own. */
export const layerHeadless = (options?: HeadlessOptions): Layer.Layer<InteractiveStep> =>
  Layer.scoped(
    InteractiveStep,
    Effect.map(McpNodeHttpClient.agents, (pools) => makeHeadless(McpNodeHttpClient.execute(pools), options))
  )
