/**
 * What only HTTP reads and writes around a JSON-RPC body: the revision a body's `_meta` names (to pick the era before
 * the engine sees the body), JSON text parsed and an error answered as text, and the header encodings of the
 * Streamable HTTP transport. Whether a raw body is a request, notification or response is `JsonRpc.looksLike*`.
 */
import { Json, JsonRpc } from "@effect-mcp/schema"
import * as Either from "effect/Either"

/** The `_meta` key that carries a request's revision under 2026-07-28. */
export const protocolVersionKey = "io.modelcontextprotocol/protocolVersion"

/** The revision a message's `_meta` names, if any (read before the engine decodes the message). */
export const metaRevision = (u: unknown): unknown =>
  Json.record(Json.record(Json.record(u).params)._meta)[protocolVersionKey]

/** Parses JSON text. */
export const parseJson = (text: string): Either.Either<unknown, string> =>
  Either.try({ try: () => JSON.parse(text) as unknown, catch: (e) => (e instanceof Error ? e.message : String(e)) })

/** A JSON-RPC error response as JSON text. */
export const errorBody = (id: JsonRpc.RequestId | null, code: number, message: string, data?: unknown): string =>
  JSON.stringify(JsonRpc.failure(id, data === undefined ? { code, message } : { code, message, data }))

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
