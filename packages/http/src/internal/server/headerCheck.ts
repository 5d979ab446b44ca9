/**
 * The 2026-07-28 header check: a stateless request's `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers
 * must agree with its body, and so must the `Mcp-Param-{Name}` headers of the parameters its tool mirrors.
 */
import type { McpServer } from "@effect-mcp/core"
import { Json, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Either from "effect/Either"
import * as ParamHeaders from "../paramHeaders.js"
import * as Wire from "../wire.js"
import type { Incoming } from "./exchange.js"

/** Why a request's headers disagree with its body (answered -32020), or undefined when they agree. */
export const mismatch = (
  server: McpServer.McpServerService,
  request: Incoming,
  body: Record<string, unknown>
): string | undefined => {
  const version = request.headers["mcp-protocol-version"]
  const meta = Wire.metaRevision(body)
  if (version === undefined) return "Header mismatch: the MCP-Protocol-Version header is required"
  if (meta !== version) {
    return `Header mismatch: MCP-Protocol-Version header value '${version}' does not match body value '${
      McpError.quote(meta)
    }'`
  }
  if (!JsonRpc.looksLikeRequest(body)) return undefined
  const method = request.headers["mcp-method"]
  if (method === undefined) return "Header mismatch: the Mcp-Method header is required"
  if (method !== body.method) {
    return `Header mismatch: Mcp-Method header value '${method}' does not match body value '${
      McpError.quote(body.method)
    }'`
  }
  const field = Wire.namedMethods[body.method]
  if (field === undefined) return undefined
  const raw = request.headers["mcp-name"]
  if (raw === undefined) return `Header mismatch: the Mcp-Name header is required for ${body.method}`
  const name = Wire.decodeHeaderValue(raw)
  if (name === undefined) return "Header mismatch: the Mcp-Name header is not valid Base64"
  const params = Json.record(Json.record(body).params)
  const value = params[field]
  if (typeof value !== "string" || name !== value) {
    return `Header mismatch: Mcp-Name header value '${McpError.quote(name)}' does not match body value '${
      McpError.quote(value)
    }'`
  }
  if (body.method !== "tools/call") return undefined
  // Parameters the tool mirrors into Mcp-Param-{Name} headers must be there and match.
  const tool = server.tool(value)
  const mirrored = tool === undefined ? Either.right([]) : ParamHeaders.find(tool.descriptor.inputSchema)
  for (const param of Either.getOrElse(mirrored, () => [])) {
    const expected = ParamHeaders.valueAt(params.arguments, param.path)
    if (expected === undefined) continue
    const header = request.headers[`mcp-param-${param.name.toLowerCase()}`]
    if (header === undefined) return `Header mismatch: the Mcp-Param-${param.name} header is required`
    const decoded = Wire.decodeHeaderValue(header)
    if (decoded === undefined || !ParamHeaders.matches(decoded, expected)) {
      return `Header mismatch: Mcp-Param-${param.name} header value '${header}' does not match the body`
    }
  }
  return undefined
}
