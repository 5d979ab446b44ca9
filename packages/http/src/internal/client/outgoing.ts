/**
 * What the client transport sends: the headers of each request (credentials; the session and negotiated revision of a
 * handshake session; or, on a 2026-07-28 request, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the tool's
 * mirrored `Mcp-Param-*` headers instead), and the HTTP exchange that carries it.
 */
import { Json, Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import type * as McpHttpClient from "../../McpHttpClient.js"
import * as ParamHeaders from "../paramHeaders.js"
import * as Wire from "../wire.js"
import { type ClientState, Failed } from "./state.js"

/** The revision of a message sent statelessly (2026-07-28 or later, in its `_meta`), if it is one. */
export const statelessRevision = (message: unknown): string | undefined => {
  const rev = Wire.metaRevision(message)
  return typeof rev === "string" && (Revision.isRevision(rev) ? Revision.isStateless(rev) : rev >= Revision.stateless)
    ? rev
    : undefined
}

/** The headers of one request carrying `message` (none for a GET or DELETE); `withSession` adds the session id. */
export const headersFor = (
  client: ClientState,
  message: unknown,
  withSession: boolean
): Effect.Effect<Record<string, string>> => {
  const token = client.options.token
  // Without a token (every call of the "echo over HTTP" rows) the headers are made in the caller's call.
  return token === undefined
    ? Effect.succeed(headersWith(client, message, withSession, undefined))
    : Effect.map(token, (value) => headersWith(client, message, withSession, value))
}

const headersWith = (client: ClientState, message: unknown, withSession: boolean, token: string | undefined) => {
  const headers: Record<string, string> = {
    ...client.options.headers,
    accept: "application/json, text/event-stream"
  }
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`
  const rev = statelessRevision(message)
  if (rev !== undefined) {
    const m = Json.record(message)
    headers["mcp-protocol-version"] = rev
    if (typeof m.method === "string") {
      headers["mcp-method"] = m.method
      const field = Wire.namedMethods[m.method]
      const value = field === undefined ? undefined : Json.record(m.params)[field]
      if (value !== undefined) headers["mcp-name"] = Wire.encodeHeaderValue(String(value))
      if (m.method === "tools/call") {
        for (const param of client.mirrored.get(String(value)) ?? []) {
          const mirroredValue = ParamHeaders.valueAt(Json.record(m.params).arguments, param.path)
          const header = mirroredValue === undefined ? undefined : ParamHeaders.headerValue(mirroredValue)
          if (header !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = header
        }
      }
    }
    return headers
  }
  if (withSession && client.sessionId !== undefined) headers["mcp-session-id"] = client.sessionId
  if (client.protocolVersion !== undefined) headers["mcp-protocol-version"] = client.protocolVersion
  return headers
}

/** Runs one HTTP exchange; its failure is the transport's `Failed`. */
export const execute = (client: ClientState, request: McpHttpClient.OutgoingRequest) =>
  client.sendRequest(request).pipe(Effect.mapError((e) => new Failed({ reason: e.reason, cause: e })))

/** POSTs `message` to the endpoint (on the session, unless `withSession` is false). */
export const post = (client: ClientState, message: unknown, withSession = true) =>
  Effect.flatMap(
    headersFor(client, message, withSession),
    (headers) => execute(client, { method: "POST", url: client.url, headers, body: JSON.stringify(message) })
  )
