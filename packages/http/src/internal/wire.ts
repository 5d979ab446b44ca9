/**
 * Small facts about JSON-RPC values as they arrive over HTTP (before the engine validates them),
 * and the header encodings of the Streamable HTTP transport.
 */
import { type JsonRpc, McpError } from "@effect-mcp/schema"
import * as Either from "effect/Either"

/** The `_meta` key that carries a request's revision under 2026-07-28. */
export const protocolVersionKey = "io.modelcontextprotocol/protocolVersion"

/** Whether a value is a plain object. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A value as an object (an empty one when it is not). */
export const record = (u: unknown): Record<string, unknown> => (isRecord(u) ? u : {})

/** Whether a value is a JSON-RPC id. */
export const isId = (u: unknown): u is JsonRpc.RequestId => typeof u === "string" || Number.isSafeInteger(u)

/** Whether a value looks like a request (a method and an id). */
export const isRequest = (u: unknown): u is { readonly id: JsonRpc.RequestId; readonly method: string } =>
  isRecord(u) && typeof u.method === "string" && isId(u.id)

/** Whether a value looks like a notification (a method, no id). */
export const isNotification = (u: unknown): boolean => isRecord(u) && typeof u.method === "string" && !("id" in u)

/** Whether a value looks like a response (an id and a result or an error, no method). */
export const isResponse = (u: unknown): u is { readonly id: JsonRpc.RequestId | null } =>
  isRecord(u) && !("method" in u) && ("result" in u || "error" in u)

/** The revision a message's `_meta` names, if any. */
export const metaRevision = (u: unknown): unknown => record(record(record(u).params)._meta)[protocolVersionKey]

/** A peer's value as an error message quotes it (bounded: see `McpError.quote`). */
export const quote = McpError.quote

/** Parses JSON text. */
export const parseJson = (text: string): Either.Either<unknown, string> =>
  Either.try({ try: () => JSON.parse(text) as unknown, catch: (e) => (e instanceof Error ? e.message : String(e)) })

/** A JSON-RPC error response as JSON text. */
export const errorBody = (id: JsonRpc.RequestId | null, code: number, message: string, data?: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } })

const sentinel = /^=\?base64\?(.*)\?=$/s

/** Whether a string can travel as a plain header value (visible ASCII and inner spaces, not the sentinel). */
const headerSafe = (s: string) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s) && !sentinel.test(s)

const toBase64 = (s: string) => {
  let binary = ""
  for (const b of new TextEncoder().encode(s)) binary += String.fromCharCode(b)
  return btoa(binary)
}

/** Encodes a value for `Mcp-Name` / `Mcp-Param-*` (plain when safe, else the Base64 sentinel form). */
export const encodeHeaderValue = (s: string): string => (headerSafe(s) ? s : `=?base64?${toBase64(s)}?=`)

/** Decodes an `Mcp-Name` / `Mcp-Param-*` header value (undefined when the Base64 form is invalid). */
export const decodeHeaderValue = (s: string): string | undefined => {
  const m = sentinel.exec(s)
  if (m === null) return s
  return Either.getOrUndefined(Either.try(() => {
    const binary = atob(m[1]!)
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
  }))
}

/** The methods whose target travels in `Mcp-Name`, and where the body keeps it. */
export const namedMethods: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri"
}
