/**
 * Writing Server-Sent Events (the parsing side lives in a maintained library on the client).
 */
const encoder = new TextEncoder()

/** One `message` event carrying JSON, with an id when the stream is resumable. */
export const event = (id: string | undefined, data: unknown): Uint8Array =>
  encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(data)}\n\n`)

/** The priming event: an id and empty data, so that the client can resume from the very start; with `retry`. */
export const priming = (id: string, retryMs: number): Uint8Array =>
  encoder.encode(`id: ${id}\nretry: ${retryMs}\ndata:\n\n`)

/** A comment that keeps the connection alive (clients ignore it). */
export const keepAlive: Uint8Array = encoder.encode(": keep-alive\n\n")

/** A comment that makes the response start (headers flushed) before the first event. */
export const opening: Uint8Array = encoder.encode(": stream open\n\n")

/** The legacy (2024-11-05) `endpoint` event that tells the client where to POST. */
export const endpoint = (url: string): Uint8Array => encoder.encode(`event: endpoint\ndata: ${url}\n\n`)
