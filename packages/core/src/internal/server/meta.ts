/**
 * What the session reads off untyped wire values: the `_meta` keys of 2026-07-28, the tasks extension's id, the
 * revision a request asks for, and the errors a request is refused with.
 */
import { Json, type JsonRpc, McpError } from "@effect-mcp/schema"
import type * as Transport from "../../Transport.js"

/** The `_meta` keys the session reads and writes. */
export const metaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  relatedTask: "io.modelcontextprotocol/related-task"
} as const

/** The 2026 tasks extension's identifier (capability key under `extensions`). */
export const tasksExtension = "io.modelcontextprotocol/tasks"

/** A value as a record: itself when it is a plain object, else an empty one (`Json.record`, beside the other readers). */
export const record = Json.record

/** The revision a request asks for: its `_meta` protocol version, else the one its transport knows (if any). */
export const requestedRevision = (request: JsonRpc.Request, frame: Transport.Frame): unknown =>
  record(record(request.params)._meta)[metaKeys.protocolVersion] ?? frame.revision

/** -32602 with this message. */
export const invalidParams = (message: string) => new McpError.InvalidParams({ message })

/** -32601 for `method` (a peer's method name, or a description that names it: cut to 256 characters). */
export const methodNotFound = (method: string) => {
  const named = method.length > 256 ? `${method.slice(0, 256)}…` : method
  return new McpError.MethodNotFound({ message: `Method not found: ${named}`, method: named })
}
