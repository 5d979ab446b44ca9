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

/**
 * The mirrored parameters of each registered tool's `inputSchema`, found once per schema (a descriptor never changes):
 * walking the schema twice on every `tools/call`, an `Object.entries` per node, showed in a stateless call's CPU and
 * allocation profiles (docs/benchmarks.md, "Stateless HTTP CPU, session 23": the "echo over HTTP 2026-07-28
 * stateless" rows). A schema whose annotations are invalid mirrors nothing (a client drops such a tool from its list).
 */
const mirroredOf = new WeakMap<object, ReadonlyArray<ParamHeaders.ParamHeader>>()

const mirrored = (inputSchema: object): ReadonlyArray<ParamHeaders.ParamHeader> => {
  let found = mirroredOf.get(inputSchema)
  if (found === undefined) {
    found = Either.getOrElse(ParamHeaders.find(inputSchema), (): ReadonlyArray<ParamHeaders.ParamHeader> => [])
    mirroredOf.set(inputSchema, found)
  }
  return found
}

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
  for (const param of tool === undefined ? [] : mirrored(tool.descriptor.inputSchema)) {
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
