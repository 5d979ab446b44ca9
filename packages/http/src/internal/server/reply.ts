/**
 * The endpoint's answers as values: a JSON body, an empty one, an SSE stream, and a JSON-RPC error (an `McpError`)
 * with its HTTP status; the refusals every route shares are built once.
 */
import type { JsonRpc } from "@effect-mcp/schema"
import { McpError } from "@effect-mcp/schema"
import type * as Stream from "effect/Stream"
import * as Wire from "../wire.js"
import type { Reply } from "./exchange.js"

/** The headers of every SSE answer (no caching, no proxy buffering). */
export const sseHeaders = {
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no"
}

/** A JSON body. */
export const json = (status: number, body: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers,
  contentType: "application/json",
  body
})

/** No body. */
export const empty = (status: number): Reply => ({ status, headers: {} })

/** An SSE stream (status 200). */
export const sse = (body: Stream.Stream<Uint8Array>, headers: Record<string, string>): Reply => ({
  status: 200,
  headers,
  contentType: "text/event-stream",
  body
})

/** A JSON-RPC error response with an HTTP status (its id null unless the request's could be read). */
export const error = (
  status: number,
  failure: McpError.McpError,
  headers: Record<string, string> = {},
  id: JsonRpc.RequestId | null = null
): Reply => json(status, Wire.errorBody(id, failure.code, failure.message), headers)

/** A path the endpoint does not serve. */
export const notFound: Reply = { status: 404, headers: {} }

/** 415: the body is not JSON. */
export const unsupportedMediaType = error(
  415,
  McpError.serverError("Unsupported Media Type: Content-Type must be application/json")
)

/** 406: the client accepts neither answer. */
export const notAcceptable = error(
  406,
  McpError.serverError("Not Acceptable: the client must accept application/json or text/event-stream")
)

/** 406: the client does not accept the stream this request is answered with. */
export const notAcceptableStream = error(
  406,
  McpError.serverError("Not Acceptable: the client must accept text/event-stream")
)

/** 404: no such session (to a client that is not its owner, a session does not exist). */
export const sessionNotFound = (headers: Record<string, string> = {}): Reply =>
  error(404, McpError.sessionNotFound("Session not found"), headers)

/** 405, naming the methods the path allows. */
export const methodNotAllowed = (message: string, allow: string): Reply =>
  error(405, McpError.serverError(message), { allow })

/** 503: the event store cannot replay the stream the client asked to resume (it may retry). */
export const eventStoreUnavailable: Reply = error(
  503,
  new McpError.InternalError({ message: "The event store is unavailable; retry later" }),
  { "retry-after": "1" }
)

/** 503: the session directory of a server on several processes cannot be reached (the client may retry). */
export const directoryUnavailable: Reply = error(
  503,
  new McpError.InternalError({ message: "The session directory is unavailable; retry later" }),
  { "retry-after": "1" }
)
