/**
 * The DNS-rebinding guard's two checks, as pure functions of a header value: a `Host` must name an allowed host
 * exactly (any case, with at most a numeric port), and an `Origin` must be a bare origin (scheme, host, port: no
 * user, path, query or fragment) that is allowed exactly, or whose host is a localhost name when no list is given.
 */
import * as Either from "effect/Either"

/** The host of a `Host` value: `name`, `name:port` or `[v6]`, `[v6]:port`, the port all digits; else undefined. */
const hostOf = (value: string): string | undefined => {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d+))?$/.exec(value)
  return match === null ? undefined : match[1]
}

/** Whether a `Host` header is one of `allowed` (lower-case), or names one of them followed by a port. */
export const hostAllowed = (allowed: ReadonlyArray<string>, host: string | undefined): boolean => {
  if (host === undefined) return false
  const value = host.toLowerCase()
  if (allowed.includes(value)) return true
  const name = hostOf(value)
  return name !== undefined && name !== "" && allowed.includes(name)
}

/** The URL of an `Origin` value that is a bare http(s) origin, else undefined. */
const bareOrigin = (origin: string): URL | undefined => {
  const url = Either.getOrUndefined(Either.try(() => new URL(origin)))
  if (url === undefined) return undefined
  const bare = (url.protocol === "http:" || url.protocol === "https:") && url.username === "" &&
    url.password === "" && url.pathname === "/" && url.search === "" && url.hash === "" && !origin.endsWith("/")
  return bare ? url : undefined
}

/**
 * Whether an `Origin` header may reach the endpoint: none at all (not a browser), one of `allowedOrigins` exactly
 * when given, else a bare origin whose host is one of `localHosts`.
 */
export const originAllowed = (
  localHosts: ReadonlyArray<string>,
  allowedOrigins: ReadonlyArray<string> | undefined,
  origin: string | undefined
): boolean => {
  if (origin === undefined) return true
  if (allowedOrigins !== undefined) return allowedOrigins.includes(origin)
  const url = bareOrigin(origin)
  return url !== undefined && localHosts.includes(url.hostname.toLowerCase())
}
