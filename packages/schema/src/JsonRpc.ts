/**
 * The JSON-RPC 2.0 envelope MCP messages travel in: requests, notifications, responses, batches.
 *
 * Ids are strings or integers and are never coerced. Decoding classifies a message by its keys
 * first (so that it costs one Struct decode, not a Union search) and fails with a `ParseError`
 * whose message names the offending path.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { guard } from "./internal/guard.js"
import { isRecord } from "./Json.js"

/** A request id: a string or an integer, kept as sent. */
export const RequestId = Schema.Union(Schema.String, Schema.Int)
/** A request id: a string or an integer, kept as sent. */
export type RequestId = typeof RequestId.Type

/** Whether a value is a request id (a string or a safe integer), read off a value no schema has checked yet. */
export const isRequestId = (u: unknown): u is RequestId => typeof u === "string" || Number.isSafeInteger(u)

const Params = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const absent = Schema.optionalWith(Schema.Never, { exact: true })

/** A request: has an id and a method. */
export const Request = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  method: Schema.String,
  params: Schema.optionalWith(Params, { exact: true }),
  result: absent,
  error: absent
}).annotations({ identifier: "JSONRPCRequest" })
/** A request: has an id and a method. */
export type Request = Omit<typeof Request.Type, "result" | "error">

/** A notification: a method and no id. */
export const Notification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optionalWith(Params, { exact: true }),
  id: absent,
  result: absent,
  error: absent
}).annotations({ identifier: "JSONRPCNotification" })
/** A notification: a method and no id. */
export type Notification = Omit<typeof Notification.Type, "id" | "result" | "error">

/** A successful response. */
export const SuccessResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  result: Params,
  method: absent,
  error: absent
}).annotations({ identifier: "JSONRPCResultResponse" })
/** A successful response. */
export type SuccessResponse = Omit<typeof SuccessResponse.Type, "method" | "error">

/** The error object of an error response. */
export const ErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations({ identifier: "Error" })
/** The error object of an error response. */
export type ErrorObject = typeof ErrorObject.Type

/** An error response; its id is null when the request's id could not be read. */
export const ErrorResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(RequestId),
  error: ErrorObject,
  method: absent,
  result: absent
}).annotations({ identifier: "JSONRPCErrorResponse" })
/** An error response; its id is null when the request's id could not be read. */
export type ErrorResponse = Omit<typeof ErrorResponse.Type, "method" | "result">

/** Any response. */
export type Response = SuccessResponse | ErrorResponse

/** Any single JSON-RPC message. */
export const Message = Schema.Union(Request, Notification, SuccessResponse, ErrorResponse)
/** Any single JSON-RPC message. */
export type Message = Request | Notification | SuccessResponse | ErrorResponse

/** A batch: a non-empty array of messages (accepted only from revision 2025-03-26 peers). */
export const Batch = Schema.NonEmptyArray(Message)
/** A batch: a non-empty array of messages. */
export type Batch = readonly [Message, ...Array<Message>]

type Decode<A> = (u: unknown) => Either.Either<A, ParseResult.ParseError>

/** The envelope schemas have no transformations: a valid message decodes to itself, so validate first. */
const fast = <A, I>(schema: Schema.Schema<A, I, never>): Decode<Message> => {
  const valid = guard(AST.typeAST(schema.ast))
  const slow = Schema.decodeUnknownEither(schema)
  return (
    u
  ) => (valid(u) ? Either.right(u as unknown as Message) : (slow(u) as Either.Either<Message, ParseResult.ParseError>))
}
const decodeRequest = fast(Request)
const decodeNotification = fast(Notification)
const decodeSuccess = fast(SuccessResponse)
const decodeError = fast(ErrorResponse)
const decodeAny = fast(Message)

/** Decodes one message (already parsed from JSON), classifying it by its keys first. */
export const decodeMessage = (u: unknown): Either.Either<Message, ParseResult.ParseError> => {
  if (!isRecord(u)) return decodeAny(u)
  const hasId = "id" in u
  if ("method" in u && !("result" in u) && !("error" in u)) return hasId ? decodeRequest(u) : decodeNotification(u)
  if (hasId && "result" in u && !("error" in u) && !("method" in u)) return decodeSuccess(u)
  if (hasId && "error" in u && !("result" in u) && !("method" in u)) return decodeError(u)
  return decodeAny(u)
}

/** Decodes a batch of messages. */
export const decodeBatch: Decode<Batch> = Schema.decodeUnknownEither(Batch)

/** The id of a message that failed to decode, when it has a readable one (for the error response). */
export const salvageId = (u: unknown): RequestId | null => {
  if (!isRecord(u)) return null
  const id = u.id
  return isRequestId(id) ? id : null
}

// What a frame claims to be by its keys, read before it is decoded. A transport routes on this (an HTTP POST of a
// notification gets 202, of a request a stream) and the engine picks how to refuse a frame it cannot read, while the
// engine's decoding still answers an ill-formed message with its own error. The `is*` guards below do not fit there:
// they classify a message that has already decoded.

/** Whether a value, not yet decoded, looks like a request: a string method and a request id. */
export const looksLikeRequest = (u: unknown): u is { readonly id: RequestId; readonly method: string } =>
  isRecord(u) && typeof u.method === "string" && isRequestId(u.id)

/** Whether a value, not yet decoded, looks like a notification: a string method and no id. */
export const looksLikeNotification = (u: unknown): boolean =>
  isRecord(u) && typeof u.method === "string" && !("id" in u)

/** Whether a value, not yet decoded, looks like a response: a result or an error and no method (its id unchecked). */
export const looksLikeResponse = (u: unknown): u is Record<string, unknown> =>
  isRecord(u) && !("method" in u) && ("result" in u || "error" in u)

/** Whether a decoded message is a request. */
export const isRequest = (m: Message): m is Request => "method" in m && "id" in m
/** Whether a decoded message is a notification. */
export const isNotification = (m: Message): m is Notification => "method" in m && !("id" in m)
/** Whether a decoded message is a response (success or error). */
export const isResponse = (m: Message): m is Response => !("method" in m)
/** Whether a decoded message is an error response. */
export const isErrorResponse = (m: Message): m is ErrorResponse => "error" in m

/** Builds a request. */
export const request = (id: RequestId, method: string, params?: Record<string, unknown>): Request =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

/** Builds a notification. */
export const notification = (method: string, params?: Record<string, unknown>): Notification =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }

/** Builds a success response. */
export const success = (id: RequestId, result: Record<string, unknown>): SuccessResponse => ({
  jsonrpc: "2.0",
  id,
  result
})

/** Builds an error response. */
export const failure = (id: RequestId | null, error: ErrorObject): ErrorResponse => ({ jsonrpc: "2.0", id, error })
