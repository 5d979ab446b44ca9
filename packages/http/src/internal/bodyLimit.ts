/**
 * The request body limit, whichever server reads the body: a declared `Content-Length` past the limit is refused
 * unread; otherwise chunks are counted as they come, kept while the body is within the limit, and read and dropped
 * past it (up to a bound), so that the 413 reaches the client instead of a reset connection. The node:http adapter
 * and the @effect/platform adapter each feed it their own chunks.
 */

/** How much of a body past the limit is read (and dropped) before the reader gives up on it. */
export const drainBound = (limit: number): number => limit * 4 + 1024 * 1024

/** Whether a declared `Content-Length` is past the limit. */
export const declaredTooLarge = (contentLength: string | undefined, limit: number): boolean =>
  contentLength !== undefined && Number(contentLength) > limit

/** A body being read: the chunks kept so far, and how many bytes came in all. */
export interface Collector<C extends Uint8Array> {
  readonly limit: number
  readonly chunks: Array<C>
  size: number
}

/** Starts reading a body of at most `limit` bytes. */
export const collector = <C extends Uint8Array>(limit: number): Collector<C> => ({ limit, chunks: [], size: 0 })

/** Counts a chunk, keeping it while the body is within the limit; false once the body is past the drain bound. */
export const add = <C extends Uint8Array>(body: Collector<C>, chunk: C): boolean => {
  body.size += chunk.length
  if (body.size <= body.limit) body.chunks.push(chunk)
  else if (body.size > drainBound(body.limit)) return false
  return true
}

/** Whether the whole body was past the limit (answered 413). */
export const overLimit = (body: Collector<Uint8Array>): boolean => body.size > body.limit
