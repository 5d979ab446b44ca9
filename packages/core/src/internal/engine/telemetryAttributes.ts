/**
 * What the engine's spans and histograms say of an operation (OpenTelemetry GenAI conventions for MCP): the attributes
 * of a message (its method and target, and what is known of its connection), how it ended (`error.type`,
 * `rpc.response.status_code`), and the labels of its duration, which a peer must not be able to multiply.
 */
import { Json, type JsonRpc, McpError, Method } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as MetricLabel from "effect/MetricLabel"
import * as McpTelemetry from "../../McpTelemetry.js"
import type { ConnectionState } from "./state.js"

const names = McpTelemetry.attributes

/** What an operation ended with, for its span and its histogram. */
export interface Outcome {
  readonly errorType?: string
  readonly statusCode?: string
  readonly message?: string
}

// ---------- attributes ----------

/** The attributes of a message: its method and target, and what is known of the connection. */
export const attributesOf = <E>(
  state: ConnectionState<E>,
  method: string,
  params: Record<string, unknown> | undefined,
  frameRevision: string | undefined
): Record<string, string | number> => {
  const attributes: Record<string, string | number> = { [names.methodName]: method }
  const name = typeof params?.name === "string" ? clip(params.name) : undefined
  if (method === "tools/call" && name !== undefined) {
    attributes[names.toolName] = name
    attributes[names.operationName] = "execute_tool"
  } else if (method === "prompts/get" && name !== undefined) attributes[names.promptName] = name
  else if (
    typeof params?.uri === "string" &&
    (method.startsWith("resources/") || method.startsWith("notifications/resources/"))
  ) {
    attributes[names.resourceUri] = clip(params.uri)
  }
  const revision = revisionOf(params) ?? frameRevision ?? state.handlers.revision
  if (revision !== undefined) attributes[names.protocolVersion] = revision
  const description = state.transport.describe?.()
  if (description?.networkTransport !== undefined) attributes[names.networkTransport] = description.networkTransport
  if (description?.sessionId !== undefined) attributes[names.sessionId] = description.sessionId
  if (description?.serverAddress !== undefined) attributes[names.serverAddress] = description.serverAddress
  if (description?.serverPort !== undefined) attributes[names.serverPort] = description.serverPort
  return attributes
}

/** A name or URI as an attribute: at most 256 characters (a peer's may be any length). */
const clip = (value: string): string => value.length > 256 ? value.slice(0, 256) : value

/** The revision a 2026-07-28 message names in its `_meta`. */
const revisionOf = (params: Record<string, unknown> | undefined): string | undefined => {
  const meta = params?._meta
  const revision = Json.isRecord(meta) ? meta["io.modelcontextprotocol/protocolVersion"] : undefined
  return typeof revision === "string" ? clip(revision) : undefined
}

// The attributes that label the histograms: none that names a session, a request or a resource.
const metricAttributes: ReadonlyArray<string> = [
  names.methodName,
  names.toolName,
  names.promptName,
  names.operationName,
  names.protocolVersion,
  names.networkTransport,
  names.serverAddress,
  names.serverPort
]

// What the peer named, and what an error response refused: kept on the span, but not as a label.
const peerChosen: ReadonlySet<string> = new Set([
  names.toolName,
  names.promptName,
  names.operationName,
  names.protocolVersion
])

// The error codes the protocol defines; any other code counts as `_OTHER`.
const knownCodes: ReadonlySet<string> = new Set(Object.values(McpError.codes).map(String))

/**
 * The labels of an operation's duration. Each distinct set of labels is a series Effect keeps for the life of the
 * process, so a peer must not be able to make new ones at will: an operation answered with a JSON-RPC error (an
 * unknown tool, prompt or revision) keeps no name the peer chose, a method that no revision defines counts as
 * `_OTHER`, and so does an error code the protocol does not define.
 */
export const metricLabels = (
  attributes: Record<string, string | number>,
  outcome: Outcome | undefined
): Array<MetricLabel.MetricLabel> => {
  const refused = outcome?.statusCode !== undefined
  const labels: Array<MetricLabel.MetricLabel> = []
  for (const key of metricAttributes) {
    const value = attributes[key]
    if (value === undefined || (refused && peerChosen.has(key))) continue
    const unknownMethod = key === names.methodName && Method.info(String(value)) === undefined
    labels.push(MetricLabel.make(key, unknownMethod ? "_OTHER" : String(value)))
  }
  if (outcome?.errorType !== undefined) labels.push(MetricLabel.make(names.errorType, bounded(outcome.errorType)))
  if (outcome?.statusCode !== undefined) labels.push(MetricLabel.make(names.statusCode, bounded(outcome.statusCode)))
  return labels
}

/** An error code, or `_OTHER` for one the protocol does not define (`tool_error`, `cancelled` and tags pass). */
const bounded = (code: string): string => /^-?\d+$/.test(code) && !knownCodes.has(code) ? "_OTHER" : code

// ---------- outcomes ----------

/** What the response we send says: a JSON-RPC error's code, or a tool's `isError` result. */
export const outcomeOfResponse = (method: string, response: JsonRpc.Message): Outcome | undefined => {
  if ("error" in response) {
    const code = String(response.error.code)
    return { errorType: code, statusCode: code, message: response.error.message }
  }
  return "result" in response && Json.isRecord(response.result) ? outcomeOfResult(method, response.result) : undefined
}

/** A `tools/call` result with `isError: true` is a `tool_error`. */
export const outcomeOfResult = (method: string, result: Record<string, unknown>): Outcome | undefined =>
  method === "tools/call" && result.isError === true ? { errorType: "tool_error" } : undefined

/** What a failed request of ours failed with: the peer's error code, or the kind of local failure. */
export const outcomeOfFailure = (cause: Cause.Cause<unknown>): Outcome | undefined => {
  if (Cause.isInterruptedOnly(cause)) return { errorType: "cancelled" }
  const failure = Cause.failureOption(cause)
  if (failure._tag === "None") return { errorType: "_OTHER" }
  const error = failure.value
  if (McpError.isMcpError(error)) {
    const code = String(error.code)
    return { errorType: code, statusCode: code, message: error.message }
  }
  const tag = typeof error === "object" && error !== null && "_tag" in error ? error._tag : undefined
  return { errorType: typeof tag === "string" ? tag : "_OTHER" }
}
