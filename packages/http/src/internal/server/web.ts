/**
 * The web-standard adapter of the endpoint: a fetch `Request` as an `Incoming` (its body read under the body limit),
 * and a `Reply` as a `Response`, its SSE body a `ReadableStream` fed by the request's own fiber one chunk per `pull`
 * (backpressure), whose `cancel` (the client went away) interrupts that fiber. The fiber hands out plain data and
 * promises only; the `Response` and its stream are made by the caller of `fetch`, in its own request's turn (workerd
 * forbids touching one request's streams from another's, and a session's fibers serve many requests). No node:* module: it runs wherever
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
        Stream.runForEach((chunk) =>
          BodyLimit.add(body, chunk) ? Effect.void : Effect.fail(new BodyTooLarge({ limit }))
        ),
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

/** What an SSE body hands its reader on each pull: a chunk, its end, or its failure. */
type Pulled =
  | { readonly _tag: "Chunk"; readonly chunk: Uint8Array }
  | { readonly _tag: "End" }
  | { readonly _tag: "Failed"; readonly cause: unknown }

/** An SSE body, pulled one chunk at a time by the `ReadableStream` that `toResponse` makes of it. */
interface Puller {
  /** The next chunk, once the endpoint's stream has one (or its end). */
  readonly pull: () => Promise<Pulled>
  /** The reader went away: interrupts the request. */
  readonly cancel: () => void
}

/**
 * An answer of the endpoint as plain data, turned into a `Response` by `toResponse` in the caller of `fetch`: workerd
 * binds a stream to the request it was made in, and a request's fiber may run in another's turn.
 */
export type Answer =
  | {
    readonly _tag: "Whole"
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string | null
  }
  | { readonly _tag: "Streamed"; readonly init: ResponseInit; readonly puller: Puller }

/** An answer as a `Response`: an SSE body is a `ReadableStream` that pulls one chunk whenever its reader wants one. */
export const toResponse = (answer: Answer): Response => {
  if (answer._tag === "Whole") return new Response(answer.body, { status: answer.status, headers: answer.headers })
  const { puller } = answer
  const readable = new ReadableStream<Uint8Array>({
    pull: (controller) =>
      puller.pull().then((pulled) => {
        if (pulled._tag === "Chunk") controller.enqueue(pulled.chunk)
        else if (pulled._tag === "End") controller.close()
        else controller.error(pulled.cause)
      }),
    cancel: () => puller.cancel()
  })
  return new Response(readable, answer.init)
}

/** The answer to a request that failed before its reply: a generic JSON-RPC internal error. */
const internalError: Answer = {
  _tag: "Whole",
  status: 500,
  headers: { "content-type": "application/json" },
  body: Wire.errorBody(null, McpError.codes.InternalError, "Internal error")
}

/** The answer to a request interrupted before its reply (the handler is disposed, or the client went away). */
const unavailable: Answer = { _tag: "Whole", status: 503, headers: {}, body: null }

/**
 * Streams an SSE body to the `Puller` handed to `respond`, in the calling fiber: a chunk goes out only when the reader
 * pulled, so a slow client holds the endpoint's stream back; `cancel` interrupts this fiber, and this fiber's end
 * (or failure, or interruption) ends (or breaks) the body.
 */
const streamed = (
  init: ResponseInit,
  body: Stream.Stream<Uint8Array>,
  respond: (answer: Answer) => void
): Effect.Effect<void> =>
  Effect.withFiberRuntime<void>((fiber) => {
    const wanted = Effect.unsafeMakeLatch(false)
    let waiting: ((pulled: Pulled) => void) | undefined
    let last: Pulled | undefined
    const give = (pulled: Pulled) => {
      const reader = waiting
      waiting = undefined
      reader?.(pulled)
    }
    respond({
      _tag: "Streamed",
      init,
      puller: {
        pull: () =>
          last !== undefined ? Promise.resolve(last) : new Promise<Pulled>((resolve) => {
            waiting = resolve
            wanted.unsafeOpen()
          }),
        cancel: () => fiber.unsafeInterruptAsFork(FiberId.none)
      }
    })
    const send = (chunk: Uint8Array) =>
      wanted.whenOpen(Effect.sync(() => {
        wanted.unsafeClose()
        give({ _tag: "Chunk", chunk })
      }))
    return Stream.runForEach(body, send).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          // An SSE stream cut short (the handler is disposed, or it failed) ends as a broken connection.
          last = Exit.isSuccess(exit) ? { _tag: "End" } : { _tag: "Failed", cause: Cause.squash(exit.cause) }
          give(last)
        })
      )
    )
  })

/**
 * Serves one request: the endpoint's reply as an `Answer` handed to `respond` once known, then (for an SSE reply)
 * its stream, all in the calling fiber. A request that fails before its reply is answered 500 (and logged), one
 * interrupted before it 503.
 */
export const serve = (
  handle: (request: Incoming) => Effect.Effect<Reply>,
  request: Incoming,
  respond: (answer: Answer) => void
): Effect.Effect<void> => {
  let responded = false
  const once = (answer: Answer) => {
    if (responded) return
    responded = true
    respond(answer)
  }
  return Effect.flatMap(handle(request), (reply) => {
    const body = reply.body
    if (typeof body === "object") return streamed(initOf(reply), body, once)
    const headers: Record<string, string> = { ...reply.headers }
    if (reply.contentType !== undefined) headers["content-type"] = reply.contentType
    // A null-body status (204, 205, 304) takes no body at all, not even an empty one.
    once({ _tag: "Whole", status: reply.status, headers, body: nullBodyStatus.has(reply.status) ? null : body ?? null })
    return Effect.void
  }).pipe(
    Effect.onExit((exit) => {
      if (Exit.isSuccess(exit) || responded) return Effect.void
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.sync(() => once(unavailable))
      return Effect.andThen(
        Effect.sync(() => once(internalError)),
        Effect.logError("effect-mcp: the HTTP endpoint failed", exit.cause)
      )
    })
  )
}
