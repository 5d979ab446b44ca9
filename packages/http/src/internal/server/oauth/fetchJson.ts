/**
 * Reading a JSON document from an authorization server (its metadata, its key set, its introspection answer): within
 * a timeout, no larger than a bound, never following a redirect, and every way it can go wrong an `AuthUnavailable`
 * that names the URL and never carries a token.
 */
import { Json } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Wire from "../../wire.js"
import { AuthUnavailable } from "../auth.js"

/** What is sent: a GET by default, or a POST with a form body. */
export interface Request {
  readonly method?: "GET" | "POST"
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** How a document is fetched. */
export interface Limits {
  /** Milliseconds before the request is abandoned. */
  readonly timeoutMs: number
  /** The largest body read, in bytes. */
  readonly maxBytes: number
}

/** The defaults: 5 s and 256 KiB (a key set or a metadata document is a few KiB). */
export const defaultLimits: Limits = { timeoutMs: 5_000, maxBytes: 256 * 1024 }

/** Reads a response's body as text (undefined when too large), refusing one past `maxBytes` (the stream is cancelled there). */
export const boundedText = async (response: Response, maxBytes: number): Promise<string | undefined> => {
  const declared = Number(response.headers.get("content-length") ?? "0")
  if (declared > maxBytes || response.body === null) {
    await response.body?.cancel()
    return response.body === null ? "" : undefined
  }
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ""
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      return undefined
    }
    text += decoder.decode(value, { stream: true })
  }
  return text + decoder.decode()
}

/** The body of a fetched response, bounded, with its status and headers. */
export const fetchText = (
  url: string,
  init: Request,
  limits: Limits = defaultLimits
): Effect.Effect<{ readonly status: number; readonly text: string; readonly headers: Headers }, AuthUnavailable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        method: init.method ?? "GET",
        ...(init.headers === undefined ? {} : { headers: init.headers }),
        ...(init.body === undefined ? {} : { body: init.body }),
        redirect: "manual",
        signal: AbortSignal.any([signal, AbortSignal.timeout(limits.timeoutMs)])
      })
      const text = await boundedText(response, limits.maxBytes)
      return text === undefined ? undefined : { status: response.status, text, headers: response.headers }
    },
    catch: (cause) =>
      new AuthUnavailable({
        reason: `${url} could not be reached (${
          cause instanceof Error && cause.name === "TimeoutError" ? "timed out" : "network error"
        })`
      })
  }).pipe(
    Effect.flatMap((got) =>
      got === undefined
        ? Effect.fail(new AuthUnavailable({ reason: `${url} answered more than ${limits.maxBytes} bytes` }))
        : Effect.succeed(got)
    )
  )

/** A JSON object from `url` (200 only), or why not. */
export const fetchJson = (
  url: string,
  init: Request = {},
  limits: Limits = defaultLimits
): Effect.Effect<Record<string, unknown>, AuthUnavailable> =>
  Effect.flatMap(
    fetchText(url, { ...init, headers: { accept: "application/json", ...init.headers } }, limits),
    (got) => {
      if (got.status !== 200) {
        return Effect.fail(new AuthUnavailable({ reason: `${url} answered HTTP ${got.status}` }))
      }
      const parsed = Wire.parseJson(got.text)
      if (Either.isLeft(parsed)) {
        return Effect.fail(new AuthUnavailable({ reason: `${url} answered something that is not JSON` }))
      }
      return Json.isRecord(parsed.right)
        ? Effect.succeed(parsed.right)
        : Effect.fail(new AuthUnavailable({ reason: `${url} answered JSON that is not an object` }))
    }
  )
