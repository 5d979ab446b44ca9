/**
 * Relays a request for a handshake session that another process owns to that process (found in the
 * `SessionDirectory`), with `fetch`, and turns its answer into this endpoint's `Reply`: a JSON or empty body whole, an
 * SSE body streamed as it comes (closing ours aborts theirs). Undefined when no other live process owns the session:
 * the caller answers 404, and a dead owner's entry is forgotten; 503 when the directory cannot be read.
 */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionDirectory from "../../SessionDirectory.js"
import type { Incoming, Reply } from "./exchange.js"
import * as Replies from "./reply.js"

const directoryUnavailable = Replies.error(
  503,
  new McpError.InternalError({ message: "The session directory is unavailable; retry later" }),
  { "retry-after": "1" }
)

/** Headers that belong to one hop, not to the request or answer. */
const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade"])

const forwardedHeaders = (headers: Incoming["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) out[name] = value
  }
  out[SessionDirectory.relayedHeader] = "1"
  return out
}

const replyOf = (response: Response): Effect.Effect<Reply> => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!hopByHop.has(name) && name !== "content-type") headers[name] = value
  })
  const contentType = response.headers.get("content-type") ?? undefined
  const head = { status: response.status, headers, ...(contentType === undefined ? {} : { contentType }) }
  if (response.body === null) return Effect.succeed(head)
  if (contentType?.startsWith("text/event-stream") === true) {
    return Effect.succeed({
      ...head,
      body: Stream.fromReadableStream({ evaluate: () => response.body!, onError: (e) => e }).pipe(
        Stream.catchAll(() => Stream.empty)
      )
    })
  }
  return Effect.map(Effect.promise(() => response.text()), (text) => ({ ...head, body: text }))
}

/** Relays the request to the session's owner; undefined when no other live process owns it. */
export const relay = (
  directory: SessionDirectory.SessionDirectoryService,
  sessionId: string,
  request: Incoming,
  body: string | undefined
): Effect.Effect<Reply | undefined> => {
  if (request.headers[SessionDirectory.relayedHeader] !== undefined) return Effect.succeed(undefined)
  return Effect.gen(function*() {
    const owner = yield* directory.owner(sessionId)
    if (owner === undefined) return undefined
    const sent = yield* Effect.either(Effect.tryPromise((signal) =>
      fetch(new URL(request.url, owner), {
        method: request.method,
        headers: forwardedHeaders(request.headers),
        ...(body === undefined ? {} : { body }),
        signal
      })
    ))
    if (sent._tag === "Left") {
      // Its owner is gone: the session is too (the client initializes again on 404).
      yield* Effect.logInfo(`effect-mcp: the owner of session ${sessionId} at ${owner} is gone`)
      yield* directory.release(sessionId)
      return undefined
    }
    return yield* replyOf(sent.right)
  }).pipe(
    Effect.catchTag(
      "SessionDirectoryError",
      (error) =>
        Effect.as(Effect.logWarning("effect-mcp: the session directory is unavailable", error), directoryUnavailable)
    )
  )
}
