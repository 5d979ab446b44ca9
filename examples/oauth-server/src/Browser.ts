/**
 * A user agent for tests and demos that plays the person at the browser: it opens an authorization URL and follows
 * every redirect (keeping the cookies each origin sets, as a browser does) through the test authorization server's
 * sign-in, which grants at once, to the page it ends on: the client's redirect URI, on a loopback listener of the
 * client. Only http URLs on 127.0.0.1 are visited.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** The page a visit ended on. */
export interface Landing {
  /** The URL of the last request (the client's redirect URI, with its query). */
  readonly url: URL
  /** The HTTP status of that page. */
  readonly status: number
}

/** Why a visit could not end on a page. */
export class BrowseError extends Data.TaggedError("BrowseError")<{ readonly reason: string }> {}

/** How a visit goes. */
export interface Options {
  /** How many redirects it follows before it gives up (default 10). */
  readonly maxRedirects?: number
}

/** The `name=value` pairs of a response's `Set-Cookie` headers. */
const setCookies = (response: Response): ReadonlyArray<readonly [string, string]> =>
  response.headers.getSetCookie().flatMap((line) => {
    const pair = line.split(";")[0] ?? ""
    const at = pair.indexOf("=")
    return at <= 0 ? [] : [[pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const]
  })

/** Opens `start` and follows its redirects to the page it ends on. */
export const browse = (start: string, options: Options = {}): Effect.Effect<Landing, BrowseError> =>
  Effect.gen(function*() {
    const jars = new Map<string, Map<string, string>>()
    let url = yield* Effect.try({
      try: () => new URL(start),
      catch: () => new BrowseError({ reason: "not a URL" })
    })
    for (let left = options.maxRedirects ?? 10; left >= 0; left--) {
      if (url.protocol !== "http:" || url.hostname !== "127.0.0.1") {
        return yield* new BrowseError({ reason: `refused to visit ${url.origin}: only http://127.0.0.1 is visited` })
      }
      const jar = jars.get(url.origin) ?? new Map<string, string>()
      jars.set(url.origin, jar)
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
      const at = url
      const response = yield* Effect.tryPromise({
        try: (signal) =>
          fetch(at, {
            redirect: "manual",
            signal,
            headers: { accept: "text/html", ...(cookie === "" ? {} : { cookie }) }
          }),
        catch: (cause) => new BrowseError({ reason: `${at.origin} could not be reached (${String(cause)})` })
      })
      for (const [name, value] of setCookies(response)) jar.set(name, value)
      yield* Effect.promise(() => response.arrayBuffer().catch(() => undefined))
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || location === null) {
        return { url, status: response.status }
      }
      url = new URL(location, url)
    }
    return yield* new BrowseError({ reason: "too many redirects" })
  })
