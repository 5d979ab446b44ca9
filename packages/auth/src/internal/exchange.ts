/**
 * Requests to an authorization server or a protected resource's metadata, over the transport's own exchange function:
 * every one within a timeout, its body read up to a bound, no redirect followed, and every way it goes wrong an
 * `AuthServerError` that names the URL. Nothing here ever puts a request's body (which may hold a secret) in an error.
 */
import type { McpHttpClient } from "@effect-mcp/http"
import { Json } from "@effect-mcp/schema"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AuthServerError, type Stage } from "../OAuthError.js"

/** How requests to an authorization server are bounded. */
export interface Limits {
  /** Milliseconds before a request (and the reading of its answer) is abandoned. */
  readonly timeoutMs: number
  /** The largest answer read, in bytes. */
  readonly maxBytes: number
}

/** The defaults: 10 s and 256 KiB (a metadata document or a token answer is a few KiB). */
export const defaultLimits: Limits = { timeoutMs: 10_000, maxBytes: 256 * 1024 }

/** An answer read whole. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

const decoder = () => new TextDecoder("utf-8", { fatal: false })

/** Reads a body up to `maxBytes`, failing (and dropping the rest) past it. */
const boundedText = (
  response: McpHttpClient.IncomingResponse,
  maxBytes: number,
  fail: (reason: string) => AuthServerError
): Effect.Effect<string, AuthServerError> => {
  const declared = Number(response.headers["content-length"] ?? "0")
  if (declared > maxBytes) return Effect.fail(fail(`answered more than ${maxBytes} bytes`))
  return response.stream.pipe(
    Stream.mapError((e) => fail(`the answer could not be read (${e.reason})`)),
    Stream.mapAccumEffect(0, (size, chunk) => {
      const next = size + chunk.byteLength
      return next > maxBytes
        ? Effect.fail(fail(`answered more than ${maxBytes} bytes`))
        : Effect.succeed([next, chunk] as const)
    }),
    Stream.runCollect,
    Effect.map((chunks) => {
      const text = decoder()
      return Chunk.reduce(chunks, "", (all, chunk) => all + text.decode(chunk, { stream: true })) + text.decode()
    })
  )
}

/** Sends one request and reads its answer whole, bounded and timed. */
export const send = (
  execute: McpHttpClient.Execute,
  stage: Stage,
  request: McpHttpClient.OutgoingRequest,
  limits: Limits
): Effect.Effect<Answer, AuthServerError> => {
  const where = new URL(request.url)
  const fail = (reason: string) => new AuthServerError({ stage, reason: `${where.origin}${where.pathname} ${reason}` })
  return execute(request).pipe(
    Effect.mapError((e) => fail(`could not be reached (${e.reason})`)),
    Effect.flatMap((response) =>
      Effect.map(
        boundedText(response, limits.maxBytes, fail),
        (text): Answer => ({ status: response.status, headers: response.headers, text })
      )
    ),
    Effect.timeoutFail({
      duration: Duration.millis(limits.timeoutMs),
      onTimeout: () => fail(`did not answer within ${limits.timeoutMs} ms`)
    })
  )
}

/** Parses an answer's body as a JSON object, or says why it is not one. */
export const jsonObject = (
  answer: Answer,
  stage: Stage,
  url: string
): Effect.Effect<Record<string, unknown>, AuthServerError> =>
  Effect.try({
    try: () => JSON.parse(answer.text) as unknown,
    catch: () => new AuthServerError({ stage, reason: `${url} answered something that is not JSON` })
  }).pipe(
    Effect.filterOrFail(
      Json.isRecord,
      () => new AuthServerError({ stage, reason: `${url} answered JSON that is not an object` })
    )
  )

/** A GET for a JSON document: the object when the answer is 200, `undefined` when it is 4xx (not there). */
export const getDocument = (
  execute: McpHttpClient.Execute,
  stage: Stage,
  url: string,
  limits: Limits
): Effect.Effect<Record<string, unknown> | undefined, AuthServerError> =>
  Effect.flatMap(
    send(execute, stage, { method: "GET", url, headers: { accept: "application/json" } }, limits),
    (answer) =>
      answer.status === 200
        ? jsonObject(answer, stage, url)
        : answer.status >= 400 && answer.status < 500
        ? Effect.succeed(undefined)
        : Effect.fail(new AuthServerError({ stage, reason: `${url} answered HTTP ${answer.status}` }))
  )

/** A form POST (token endpoint): the answer, whatever its status. */
export const postForm = (
  execute: McpHttpClient.Execute,
  stage: Stage,
  url: string,
  form: Readonly<Record<string, string | undefined>>,
  headers: Readonly<Record<string, string>>,
  limits: Limits
): Effect.Effect<Answer, AuthServerError> => {
  const body = new URLSearchParams()
  for (const [key, value] of Object.entries(form)) if (value !== undefined) body.set(key, value)
  return send(execute, stage, {
    method: "POST",
    url,
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: body.toString()
  }, limits)
}

/** A JSON POST (dynamic client registration): the answer, whatever its status. */
export const postJson = (
  execute: McpHttpClient.Execute,
  stage: Stage,
  url: string,
  json: unknown,
  limits: Limits
): Effect.Effect<Answer, AuthServerError> =>
  send(execute, stage, {
    method: "POST",
    url,
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(json)
  }, limits)
