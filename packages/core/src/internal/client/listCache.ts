/**
 * The stateless list cache: under 2026-07-28 a list result (tools, prompts, resources, resource templates) may carry
 * a `ttlMs`, and the same request is answered from memory until it expires. Made with the first cached result.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { withoutEraFields } from "./decode.js"

/** A cached list result and when it expires (clock milliseconds). */
interface Entry {
  readonly expires: number
  readonly result: unknown
}

/** Where a client keeps its cached list results, by request. */
export interface ListCacheHolder {
  listCache: Map<string, Entry> | undefined
}

const cacheableMethods = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"])

/** The cache key of a request (its method and encoded params), or undefined when its result is never cached. */
export const cacheKey = (method: string, params: Record<string, unknown> | undefined): string | undefined =>
  cacheableMethods.has(method) ? `${method} ${JSON.stringify(params ?? {})}` : undefined

/** The cached result of a request while it has not expired, else what `fetch` gets. */
export const cachedOr = <A, E>(
  holder: ListCacheHolder,
  key: string,
  fetch: () => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const hit = holder.listCache?.get(key)
    return hit !== undefined && hit.expires > now ? Effect.succeed(hit.result as A) : fetch()
  })

/**
 * Keeps a result for its `ttlMs` (a result without a positive one is not kept); succeeds with the result as a user
 * is handed it (`withoutEraFields`), which is also what is kept.
 */
export const store = <A>(holder: ListCacheHolder, key: string, result: A): Effect.Effect<A> => {
  const ttl = (result as { ttlMs?: number }).ttlMs
  const handed = withoutEraFields(result)
  if (typeof ttl !== "number" || ttl <= 0) return Effect.succeed(handed)
  return Effect.map(Clock.currentTimeMillis, (now) => {
    ;(holder.listCache ??= new Map()).set(key, { expires: now + ttl, result: handed })
    return handed
  })
}
