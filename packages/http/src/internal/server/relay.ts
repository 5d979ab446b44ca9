/**
 * Relays a request for a handshake session (Streamable HTTP, or a legacy HTTP+SSE POST) that another process owns to
 * that process (found in the `SessionDirectory`), with `fetch`, and turns its answer into this endpoint's `Reply`:
 * the body, JSON or SSE, streams back as it comes (closing ours aborts theirs), with nothing buffered. Undefined when
 * no other live process owns the session: the caller answers 404, and a dead owner's entry is forgotten; 503 when the
 * directory cannot be read; 504 when the owner does not answer within the timeout (when there is one). Only an id of
 * the form this endpoint makes is ever looked up, so a hostile one never reaches the directory.
 */
import { McpError } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionDirectory from "../../SessionDirectory.js"
import type { Incoming, Reply } from "./exchange.js"
import * as Replies from "./reply.js"
import { isSessionId } from "./session.js"

/** Why a relayed request got no answer from the session's owner. */
class RelayFailed extends Data.TaggedError("RelayFailed")<{
  readonly reason: "unreachable" | "timeout"
  readonly owner: string
  readonly cause?: unknown
}> {}

const ownerTimedOut = Replies.error(
  504,
  new McpError.InternalError({ message: "The process that holds this session did not answer in time; retry later" }),
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

/** The owner's answer as a reply: its status and headers, its body (if any) streamed as it comes. */
const replyOf = (response: Response): Reply => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!hopByHop.has(name) && name !== "content-type") headers[name] = value
  })
  const contentType = response.headers.get("content-type") ?? undefined
  const head = { status: response.status, headers, ...(contentType === undefined ? {} : { contentType }) }
  const body = response.body
  if (body === null) return head
  const bytes = Stream.fromReadableStream({ evaluate: () => body, onError: (cause) => cause })
  return {
    ...head,
    // The owner going away mid-answer ends an SSE stream, as any cut stream ends (the client resumes it, or learns
    // that the session is gone); it cuts a whole body, so that it never ends cleanly truncated.
    body: contentType?.startsWith("text/event-stream") === true
      ? Stream.catchAll(bytes, () => Stream.empty)
      : Stream.orDieWith(bytes, (cause) => new Error("The relayed answer was cut", { cause }))
  }
}

/** How one request is relayed. */
export interface RelayOptions {
  /** The longest to wait for the owner's response head (none: the client's own timeout bounds it). */
  readonly timeout?: Duration.Duration | undefined
}

/** Sends the request to `owner`, failing with `RelayFailed` when the owner cannot be reached or does not answer. */
const send = (owner: string, request: Incoming, body: string | undefined, options: RelayOptions) => {
  const sent = Effect.tryPromise({
    try: (signal) =>
      fetch(new URL(request.url, owner), {
        method: request.method,
        headers: forwardedHeaders(request.headers),
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
        signal
      }),
    catch: (cause) => new RelayFailed({ reason: "unreachable", owner, cause })
  })
  return options.timeout === undefined ? sent : sent.pipe(
    Effect.timeoutFail({
      duration: options.timeout,
      onTimeout: () => new RelayFailed({ reason: "timeout", owner })
    })
  )
}

/** Whether a request may be relayed: not relayed already, and for an id of the form this endpoint makes. */
export const relayable = (request: Incoming, sessionId: string): boolean =>
  request.headers[SessionDirectory.relayedHeader] === undefined && isSessionId(sessionId)

/** Forgets a session in the directory; a directory that is away is logged (its entry expires with its ttl). */
export const forget = (
  directory: SessionDirectory.SessionDirectoryService | undefined,
  sessionId: string
): Effect.Effect<void> =>
  directory === undefined ? Effect.void : Effect.catchAll(
    directory.release(sessionId),
    (error) => Effect.logWarning("effect-mcp: the session directory could not forget a session", error)
  )

/** Relays the request to the session's owner; undefined when no other live process owns it. */
export const relay = (
  directory: SessionDirectory.SessionDirectoryService,
  sessionId: string,
  request: Incoming,
  body: string | undefined,
  options: RelayOptions = {}
): Effect.Effect<Reply | undefined> => {
  if (!relayable(request, sessionId)) return Effect.succeed(undefined)
  return Effect.gen(function*() {
    const owner = yield* directory.owner(sessionId)
    if (owner === undefined) return undefined
    return replyOf(yield* send(owner, request, body, options))
  }).pipe(
    Effect.catchTags({
      SessionDirectoryError: (error) =>
        Effect.as(
          Effect.logWarning("effect-mcp: the session directory is unavailable", error),
          Replies.directoryUnavailable
        ),
      RelayFailed: (failure) =>
        failure.reason === "timeout"
          ? Effect.as(
            Effect.logWarning(`effect-mcp: the owner of session ${sessionId} at ${failure.owner} did not answer`),
            ownerTimedOut
          )
          : Effect.gen(function*() {
            // Its owner is gone: the session is too (the client initializes again on 404).
            yield* Effect.logInfo(`effect-mcp: the owner of session ${sessionId} at ${failure.owner} is gone`)
            yield* forget(directory, sessionId)
            return undefined
          })
    })
  )
}
