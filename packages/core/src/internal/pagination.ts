/**
 * Cursor pagination of list results: the cursor is opaque to clients (a base64url offset).
 */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"

const prefix = "effect-mcp:"

/** The cursor that resumes a list at `offset`. */
export const cursorAt = (offset: number): string => Encoding.encodeBase64Url(`${prefix}${offset}`)

/** The offset a cursor resumes at, or InvalidParams for a cursor we did not issue. */
export const offsetOf = (cursor: string | undefined): Effect.Effect<number, McpError.InvalidParams> => {
  if (cursor === undefined) return Effect.succeed(0)
  const text = Either.getOrElse(Encoding.decodeBase64UrlString(cursor), () => "")
  const offset = text.startsWith(prefix) ? Number(text.slice(prefix.length)) : Number.NaN
  return Number.isSafeInteger(offset) && offset >= 0
    ? Effect.succeed(offset)
    : Effect.fail(new McpError.InvalidParams({ message: `Invalid cursor: ${McpError.quote(cursor)}` }))
}

/** One page of `items` starting at the cursor, with the next cursor when more remain. */
export const page = <A>(
  items: ReadonlyArray<A>,
  cursor: string | undefined,
  pageSize: number
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string }, McpError.InvalidParams> =>
  Effect.map(offsetOf(cursor), (offset) => {
    const slice = items.slice(offset, offset + pageSize)
    const next = offset + pageSize
    return next < items.length ? { items: slice, nextCursor: cursorAt(next) } : { items: slice }
  })
