/**
 * What an HTTP error answer to one of the client's requests means: the server's own JSON-RPC error, which the request
 * fails with as the McpError of its code, or what the transport reports instead. The HTTP status, not a code in the
 * body, tells these apart: 401 is `Unauthorized` and 403 `Forbidden` (with the `WWW-Authenticate` header), a 404 on
 * a session is `SessionExpired` (the official SDK servers send -32001 "Session not found" with it, which is no
 * timeout), anything else without a JSON-RPC error a `TransportError` with the status.
 */
import { Transport } from "@effect-mcp/core"
import { Json, McpError } from "@effect-mcp/schema"
import * as Either from "effect/Either"
import * as Wire from "./wire.js"

/** The longest piece of a server's body quoted in a reason. */
const maxDetail = 200

/** A piece of a server's text as a reason quotes it: one line, at most `maxDetail` characters. */
export const preview = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > maxDetail ? `${line.slice(0, maxDetail)}…` : line
}

/** The JSON-RPC error response an HTTP error body holds, if any. */
export const jsonRpcError = (text: string): Record<string, unknown> | undefined => {
  const parsed = Wire.parseJson(text)
  const body = Either.isRight(parsed) ? Json.record(parsed.right) : {}
  const error = Json.record(body.error)
  return typeof error.code === "number" && typeof error.message === "string" ? body : undefined
}

/** What the body says went wrong, for a reason: a JSON-RPC or OAuth error's message, or the text itself. */
const detailOf = (text: string): string => {
  const parsed = Wire.parseJson(text)
  const body = Either.isRight(parsed) ? Json.record(parsed.right) : {}
  const error = body.error
  const said = Json.isRecord(error)
    ? error.message
    : typeof body.error_description === "string"
    ? body.error_description
    : error
  const detail = preview(typeof said === "string" ? said : text)
  return detail === "" ? "" : `: ${detail}`
}

/** An HTTP error answer, as the transport read it. */
export interface ErrorAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The body (read whole, and bounded by the transport). */
  readonly text: string
}

/** What an error answer means: the server's JSON-RPC error response, or the transport's failure. */
export type Meaning =
  | { readonly _tag: "JsonRpc"; readonly body: Record<string, unknown> }
  | { readonly _tag: "Failure"; readonly failure: Transport.RequestError }

/**
 * What an HTTP error answer to a request means. `sessionId` is the session the request was sent on (none under
 * 2026-07-28 or before the handshake): only then is a 404 the session's end.
 */
export const classify = (answer: ErrorAnswer, sessionId: string | undefined): Meaning => {
  const { headers, status, text } = answer
  const wwwAuthenticate = headers["www-authenticate"]
  const auth = wwwAuthenticate === undefined ? {} : { wwwAuthenticate }
  const detail = detailOf(text)
  if (status === 401) {
    const reason = `the server refused the request's credentials (HTTP 401${detail})`
    return { _tag: "Failure", failure: new Transport.Unauthorized({ reason, status, ...auth }) }
  }
  if (status === 403) {
    const reason = `the server forbade the request (HTTP 403${detail})`
    return { _tag: "Failure", failure: new Transport.Forbidden({ reason, status, ...auth }) }
  }
  if (status === 404 && sessionId !== undefined) {
    const reason = `the server does not know it (HTTP 404${detail})`
    return { _tag: "Failure", failure: new Transport.SessionExpired({ sessionId, reason }) }
  }
  const body = jsonRpcError(text)
  // -32001 on a 404 is "Session not found" (of a session we do not have), never a request's timeout.
  if (body !== undefined && !(status === 404 && Json.record(body.error).code === McpError.codes.RequestTimeout)) {
    return { _tag: "JsonRpc", body }
  }
  return {
    _tag: "Failure",
    failure: new Transport.TransportError({ reason: `the server answered HTTP ${status}${detail}`, status })
  }
}
