/**
 * The web-standard adapter of the endpoint: a fetch `Request` as an `Incoming` (its body read under the body limit),
 * and a `Reply` as a `Response`, its SSE body a `ReadableStream` fed by the request's own fiber one chunk per `pull`
 * (backpressure), whose `cancel` (the client went away) interrupts that fiber. No node:* module: it runs wherever
 * fetch's types do (Node, Bun, Deno, workerd, a browser's service worker).
 */
import { McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Stream from "effect/Stream"
import * as BodyLimit from "../bodyLimit.js"
import * as Wire from "../wire.js"
import { BodyTooLarge, BodyUnreadable, type Incoming, type Reply } from "./exchange.js"

/** The headers of a fetch request by lower-case name (a repeated header is one value joined by `, `). */
const headersOf = (request: Request): Record<string, string> => {
  const headers: Record<string, string> = {}
  // `Host` is read from the headers only, never from the URL: a request without one is refused by the guard.
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  return headers
}

/** Joins the chunks of a body read whole and decodes them as UTF-8. */
const decode = (body: BodyLimit.Collector<Uint8Array>): string => {
  const { chunks } = body
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0])
  const all = new Uint8Array(body.size)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.length
  }
  return new TextDecoder().decode(all)
}

/** Reads a fetch request's body whole, refusing one larger than `limit` bytes; interruption cancels the read. */
const readText = (request: Request) => (limit: number): Effect.Effect<string, BodyTooLarge | BodyUnreadable> =>
  Effect.suspend(() => {
    if (BodyLimit.declaredTooLarge(request.headers.get("content-length") ?? undefined, limit)) {
      return Effect.fail(new BodyTooLarge({ limit }))
    }
    const stream = request.body
    if (stream === null) return Effect.succeed("")
    const body = BodyLimit.collector<Uint8Array>(limit)
    return Stream.fromReadableStream({ evaluate: () => stream, onError: (cause) => new BodyUnreadable({ cause }) })
      .pipe(
        Stream.runForEach((chunk) => BodyLimit.add(body, chunk) ? Effect.void : Effect.fail(new BodyTooLarge({ limit }))),
        Effect.flatMap(() =>
          BodyLimit.overLimit(body) ? Effect.fail(new BodyTooLarge({ limit })) : Effect.succeed(decode(body))
        )
      )
  })

/** A fetch request as the endpoint reads it (`remoteAddress` when the host tells it, for per-client session limits). */
export const fromRequest = (request: Request, remoteAddress?: string): Incoming => {
  const url = new URL(request.url)
  return {
    method: request.method.toUpperCase(),
    url: url.pathname + url.search,
    headers: headersOf(request),
    remoteAddress,
    readText: readText(request)
  }
}

/** The status line and headers of a reply. */
const initOf = (reply: Reply): ResponseInit => {
  const headers = new Headers(reply.headers)
  if (reply.contentType !== undefined) headers.set("content-type", reply.contentType)
  return { status: reply.status, headers }
}

/** The statuses a `Response` refuses any body for. */
const nullBodyStatus = new Set([101, 204, 205, 304])

/** The answer to a request that failed before its reply: a generic JSON-RPC internal error. */
const internalError = (): Response =>
  new Response(Wire.errorBody(null, McpError.codes.InternalError, "Internal error"), {
    status: 500,
    headers: { "content-type": "application/json" }
  })

/** The answer to a request interrupted before its reply (the handler is disposed, or the client went away). */
const unavailable = (): Response => new Response(null, { status: 503 })

/**
 * Streams an SSE body into a `ReadableStream` handed to `respond`, in the calling fiber: a chunk is enqueued only
 * while the stream's queue wants more, so a slow client holds the endpoint's stream back; the stream's `cancel`
 * interrupts this fiber, and this fiber's end (or failure, or interruption) closes (or errors) the stream.
 */
const streamed = (
  init: ResponseInit,
  body: Stream.Stream<Uint8Array>,
  respond: (response: Response) => void
): Effect.Effect<void> =>
  Effect.withFiberRuntime<void>((fiber) => {
    const wanted = Effect.unsafeMakeLatch(false)
    let cancelled = false
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    const readable = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c
      },
      pull: () => {
        wanted.unsafeOpen()
      },
      cancel: () => {
        cancelled = true
        fiber.unsafeInterruptAsFork(FiberId.none)
      }
    })
    respond(new Response(readable, init))
    const enqueue = (chunk: Uint8Array) =>
      wanted.whenOpen(Effect.sync(() => {
        controller?.enqueue(chunk)
        if ((controller?.desiredSize ?? 0) <= 0) wanted.unsafeClose()
      }))
    return Stream.runForEach(body, enqueue).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (cancelled || controller === undefined) return
          if (Exit.isSuccess(exit)) controller.close()
          // An SSE stream cut short (the handler is disposed, or it failed) ends as a broken connection.
          else controller.error(Cause.squash(exit.cause))
        })
      )
    )
  })

/**
 * Serves one request: the endpoint's reply as a `Response` handed to `respond` once known, then (for an SSE reply)
 * its stream, all in the calling fiber. A request that fails before its reply is answered 500 (and logged), one
 * interrupted before it 503.
 */
export const serve = (
  handle: (request: Incoming) => Effect.Effect<Reply>,
  request: Incoming,
  respond: (response: Response) => void
): Effect.Effect<void> => {
  let responded = false
  const once = (response: Response) => {
    if (responded) return
    responded = true
    respond(response)
  }
  return Effect.flatMap(handle(request), (reply) => {
    const init = initOf(reply)
    const body = reply.body
    if (typeof body === "object") return streamed(init, body, once)
    // A null-body status (204, 205, 304) takes no body at all, not even an empty one.
    once(new Response(nullBodyStatus.has(reply.status) ? null : body ?? null, init))
    return Effect.void
  }).pipe(
    Effect.onExit((exit) => {
      if (Exit.isSuccess(exit) || responded) return Effect.void
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.sync(() => once(unavailable()))
      return Effect.andThen(
        Effect.sync(() => once(internalError())),
        Effect.logError("effect-mcp: the HTTP endpoint failed", exit.cause)
      )
    })
  )
}
