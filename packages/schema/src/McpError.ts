/**
 * The errors that cross the wire: one `Schema.TaggedError` class per JSON-RPC / MCP error code,
 * each carrying its code and typed `data`, plus the conversion to and from the wire's error object
 * for a given revision.
 */
import * as Schema from "effect/Schema"
import * as Domain from "./generated/Domain.js"
import { lazily } from "./internal/lazily.js"
import type * as JsonRpc from "./JsonRpc.js"
import * as Revision from "./Revision.js"

/** The JSON-RPC and MCP error codes. */
export const codes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestTimeout: -32001,
  ResourceNotFound: -32002,
  UrlElicitationRequired: -32042,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /** The HTTP transports' refusal of a request before any method sees it; the HTTP status says why. */
  ServerError: -32000,
  /** The Streamable HTTP transport's answer for a session it does not know (the code it shares with a timeout). */
  SessionNotFound: -32001,
  /** The Streamable HTTP transport's answer for a request that failed authentication (as `SessionNotFound`). */
  Unauthorized: -32001
} as const

const optionalData = { data: Schema.optionalWith(Schema.Unknown, { exact: true }) }

/** -32700: the bytes were not JSON. */
export class ParseError extends Schema.TaggedError<ParseError>("@effect-mcp/schema/ParseError")("ParseError", {
  message: Schema.String,
  ...optionalData
}) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.ParseError
  }
}

/** -32600: the JSON was not a valid JSON-RPC request. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>("@effect-mcp/schema/InvalidRequest")(
  "InvalidRequest",
  { message: Schema.String, ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.InvalidRequest
  }
}

/** -32601: the method does not exist or is not available (in this revision, or without a capability). */
export class MethodNotFound extends Schema.TaggedError<MethodNotFound>("@effect-mcp/schema/MethodNotFound")(
  "MethodNotFound",
  { message: Schema.String, method: Schema.optionalWith(Schema.String, { exact: true }), ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.MethodNotFound
  }
}

/** -32602: the params did not match the method's schema (the message names the path). */
export class InvalidParams extends Schema.TaggedError<InvalidParams>("@effect-mcp/schema/InvalidParams")(
  "InvalidParams",
  { message: Schema.String, ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.InvalidParams
  }
}

/** -32603: the peer failed internally; nothing internal is carried. */
export class InternalError extends Schema.TaggedError<InternalError>("@effect-mcp/schema/InternalError")(
  "InternalError",
  { message: Schema.String, ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.InternalError
  }
}

/** -32001: a request was not answered in time. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>("@effect-mcp/schema/RequestTimeout")(
  "RequestTimeout",
  { message: Schema.String, method: Schema.optionalWith(Schema.String, { exact: true }), ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.RequestTimeout
  }
}

/** A resource that does not exist: -32002 before 2026-07-28, -32602 from it. */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>("@effect-mcp/schema/ResourceNotFound")(
  "ResourceNotFound",
  { message: Schema.String, uri: Schema.String }
) {
  /** The JSON-RPC error code (of revisions before 2026-07-28). */
  get code(): number {
    return codes.ResourceNotFound
  }
}

/** -32042: the request needs the user to complete URL elicitations first. */
export class UrlElicitationRequired
  extends Schema.TaggedError<UrlElicitationRequired>("@effect-mcp/schema/UrlElicitationRequired")(
    "UrlElicitationRequired",
    { message: Schema.String, elicitations: Schema.Array(Domain.ElicitRequestURLParams) }
  )
{
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.UrlElicitationRequired
  }
}

/** -32020: an HTTP header disagrees with the body (2026-07-28 `Mcp-Method` / `Mcp-Name`). */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>("@effect-mcp/schema/HeaderMismatch")(
  "HeaderMismatch",
  { message: Schema.String, ...optionalData }
) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.HeaderMismatch
  }
}

/** -32021: the request needs client capabilities it did not declare. */
export class MissingRequiredClientCapability extends Schema.TaggedError<MissingRequiredClientCapability>(
  "@effect-mcp/schema/MissingRequiredClientCapability"
)("MissingRequiredClientCapability", { message: Schema.String, requiredCapabilities: Domain.ClientCapabilities }) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.MissingRequiredClientCapability
  }
}

/** -32022: the requested protocol revision is not supported. */
export class UnsupportedProtocolVersion extends Schema.TaggedError<UnsupportedProtocolVersion>(
  "@effect-mcp/schema/UnsupportedProtocolVersion"
)("UnsupportedProtocolVersion", {
  message: Schema.String,
  supported: Schema.Array(Schema.String),
  requested: Schema.String
}) {
  /** The JSON-RPC error code. */
  get code(): number {
    return codes.UnsupportedProtocolVersion
  }
}

/** Any other JSON-RPC error, with the code the peer sent (or an application-defined one). */
export class JsonRpcError extends Schema.TaggedError<JsonRpcError>("@effect-mcp/schema/JsonRpcError")(
  "JsonRpcError",
  { code: Schema.Int, message: Schema.String, ...optionalData }
) {}

/** -32000: the HTTP transport refused a request (a header, the media type, the HTTP method, a limit). */
export const serverError = (message: string): JsonRpcError => new JsonRpcError({ code: codes.ServerError, message })

/** -32001: the Streamable HTTP transport knows no such session (it ended, or belongs to another client). */
export const sessionNotFound = (message: string): JsonRpcError =>
  new JsonRpcError({ code: codes.SessionNotFound, message })

/** -32001: the Streamable HTTP transport refused a request's credentials (answered 401 or 403). */
export const unauthorized = (message: string): JsonRpcError => new JsonRpcError({ code: codes.Unauthorized, message })

/** Every error that can cross the wire. */
export type McpError =
  | ParseError
  | InvalidRequest
  | MethodNotFound
  | InvalidParams
  | InternalError
  | RequestTimeout
  | ResourceNotFound
  | UrlElicitationRequired
  | HeaderMismatch
  | MissingRequiredClientCapability
  | UnsupportedProtocolVersion
  | JsonRpcError

/** Schema of every wire error (for typed failures in service signatures and RPC-style encoding). */
export const McpError = Schema.Union(
  ParseError,
  InvalidRequest,
  MethodNotFound,
  InvalidParams,
  InternalError,
  RequestTimeout,
  ResourceNotFound,
  UrlElicitationRequired,
  HeaderMismatch,
  MissingRequiredClientCapability,
  UnsupportedProtocolVersion,
  JsonRpcError
)

const tags = new Set([
  "ParseError",
  "InvalidRequest",
  "MethodNotFound",
  "InvalidParams",
  "InternalError",
  "RequestTimeout",
  "ResourceNotFound",
  "UrlElicitationRequired",
  "HeaderMismatch",
  "MissingRequiredClientCapability",
  "UnsupportedProtocolVersion",
  "JsonRpcError"
])

/** Whether a value is one of the wire errors. */
export const isMcpError = (u: unknown): u is McpError =>
  typeof u === "object" && u !== null && "_tag" in u && tags.has((u as { _tag: string })._tag) && "code" in u

const withData = (code: number, message: string, data: unknown): JsonRpc.ErrorObject =>
  data === undefined ? { code, message } : { code, message, data }

/** The wire's error object for an error, as `revision` spells it. */
export const toWire = (error: McpError, revision: Revision.Revision): JsonRpc.ErrorObject => {
  switch (error._tag) {
    case "ResourceNotFound":
      return Revision.isStateless(revision)
        ? { code: codes.InvalidParams, message: error.message, data: { uri: error.uri } }
        : { code: codes.ResourceNotFound, message: error.message, data: { uri: error.uri } }
    case "UrlElicitationRequired":
      return { code: error.code, message: error.message, data: { elicitations: error.elicitations } }
    case "MissingRequiredClientCapability":
      return { code: error.code, message: error.message, data: { requiredCapabilities: error.requiredCapabilities } }
    case "UnsupportedProtocolVersion":
      return {
        code: error.code,
        message: error.message,
        data: { supported: error.supported, requested: error.requested }
      }
    case "MethodNotFound":
    case "RequestTimeout":
      return withData(error.code, error.message, error.data)
    default:
      return withData(error.code, error.message, error.data)
  }
}

const field = (data: unknown, key: string): unknown =>
  typeof data === "object" && data !== null ? (data as Record<string, unknown>)[key] : undefined

// Compiled on the first wire error that carries them, not when the package is imported.
const decodeCapabilities = lazily(() => Schema.decodeUnknownOption(Domain.ClientCapabilities))
const decodeUrlParams = lazily(() => Schema.decodeUnknownOption(Schema.Array(Domain.ElicitRequestURLParams)))
const stringArray = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) && u.every((s) => typeof s === "string") ? u : undefined

/**
 * A peer's value as an error message quotes it: a string cut to 64 characters, anything else named by its kind
 * (never printed whole: a value may be megabytes long or thousands of levels deep).
 */
export const quote = (u: unknown): string => {
  if (typeof u === "string") return u.length > 64 ? `${u.slice(0, 64)}…` : u
  if (Array.isArray(u)) return "an array"
  return typeof u === "object" && u !== null ? "an object" : String(u)
}

/** A peer's error message is kept up to this many characters (the rest is cut, marked with "…"). */
const maxWireMessage = 16_384

/** The typed error for a wire error object (unknown codes and malformed `data` become `JsonRpcError`). */
export const fromWire = (error: JsonRpc.ErrorObject): McpError => {
  const { code, data } = error
  const message = error.message.length > maxWireMessage ? `${error.message.slice(0, maxWireMessage)}…` : error.message
  const rest = data === undefined ? {} : { data }
  switch (code) {
    case codes.ParseError:
      return new ParseError({ message, ...rest })
    case codes.InvalidRequest:
      return new InvalidRequest({ message, ...rest })
    case codes.MethodNotFound:
      return new MethodNotFound({ message, ...rest })
    case codes.InvalidParams: {
      const uri = field(data, "uri")
      return typeof uri === "string" && Object.keys(data as object).length === 1
        ? new ResourceNotFound({ message, uri })
        : new InvalidParams({ message, ...rest })
    }
    case codes.InternalError:
      return new InternalError({ message, ...rest })
    case codes.RequestTimeout:
      return new RequestTimeout({ message, ...rest })
    case codes.ResourceNotFound: {
      const uri = field(data, "uri")
      return new ResourceNotFound({ message, uri: typeof uri === "string" ? uri : "" })
    }
    case codes.UrlElicitationRequired: {
      const elicitations = decodeUrlParams()(field(data, "elicitations"))
      if (elicitations._tag === "Some") return new UrlElicitationRequired({ message, elicitations: elicitations.value })
      break
    }
    case codes.HeaderMismatch:
      return new HeaderMismatch({ message, ...rest })
    case codes.MissingRequiredClientCapability: {
      const caps = decodeCapabilities()(field(data, "requiredCapabilities"))
      if (caps._tag === "Some") {
        return new MissingRequiredClientCapability({ message, requiredCapabilities: caps.value })
      }
      break
    }
    case codes.UnsupportedProtocolVersion: {
      const supported = stringArray(field(data, "supported"))
      const requested = field(data, "requested")
      if (supported && typeof requested === "string") {
        return new UnsupportedProtocolVersion({ message, supported, requested })
      }
      break
    }
  }
  return new JsonRpcError({ code, message, ...rest })
}
