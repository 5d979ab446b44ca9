/**
 * Paging through a list method: every item of every page, a repeated cursor refused as the server's violation.
 */
import * as Effect from "effect/Effect"
import { ProtocolViolation } from "../../Errors.js"

/** The paging parameter of a list request. */
export const paged = (cursor: string | undefined) => (cursor === undefined ? undefined : { cursor })

/** Every item of a list, following every page (a repeated cursor is the server's violation). */
export const allPages = <A, P extends { readonly nextCursor?: string }, E>(
  fetch: (cursor: string | undefined) => Effect.Effect<P, E>,
  items: (page: P) => ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, E | ProtocolViolation> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    do {
      const page = yield* fetch(cursor)
      out.push(...items(page))
      cursor = page.nextCursor
      if (cursor !== undefined) {
        if (seen.has(cursor)) return yield* new ProtocolViolation({ reason: "the server repeated a cursor" })
        seen.add(cursor)
      }
    } while (cursor !== undefined)
    return out
  })
