/**
 * The limits the engine puts on a peer's frame before anything reads it: how deep it may nest and how long a batch
 * may be, and what a frame over them gets. Pure: the engine acts on the verdict.
 */
import { Json, JsonRpc, McpError } from "@effect-mcp/schema"

/**
 * The default bound on a frame's nesting (arrays and objects). Decoding a recursive type and formatting a value
 * recurse once or more per level, and overflow the stack at a few thousand levels: 512 keeps them a few times
 * below that, and far above what any MCP message needs.
 */
export const defaultMaxDepth = 512

/** The default bound on a batch's length (the official TypeScript SDK's too). */
export const defaultMaxBatchSize = 100

/** What a frame nested deeper than the bound gets, read only at its top level. */
export type Refusal =
  /** A request: this error answers it (-32602 when only its params are too deep, else -32600). */
  | { readonly _tag: "Answer"; readonly response: JsonRpc.ErrorResponse }
  /** A response: the request it answers (when its id can be read) fails at once. */
  | { readonly _tag: "FailRequest"; readonly id: JsonRpc.RequestId | null; readonly reason: string }
  /** A notification: dropped. */
  | { readonly _tag: "Drop"; readonly reason: string }

/** The verdict on a frame nested deeper than `maxDepth`, or undefined when it is within the bound. */
export const checkDepth = (u: unknown, maxDepth: number): Refusal | undefined => {
  if (!Json.exceedsDepth(u, maxDepth)) return undefined
  const reason = `nested deeper than ${maxDepth} levels`
  if (JsonRpc.looksLikeResponse(u)) return { _tag: "FailRequest", id: JsonRpc.salvageId(u), reason }
  if (JsonRpc.looksLikeNotification(u)) return { _tag: "Drop", reason }
  const id = JsonRpc.salvageId(u)
  const onlyParams = id !== null && Json.isRecord(u) && typeof u.method === "string" &&
    Object.keys(u).every((key) => key === "params" || !Json.exceedsDepth(u[key], maxDepth - 1))
  return {
    _tag: "Answer",
    response: JsonRpc.failure(
      id,
      onlyParams
        ? { code: McpError.codes.InvalidParams, message: `Invalid params: ${reason}` }
        : { code: McpError.codes.InvalidRequest, message: `Invalid request: ${reason}` }
    )
  }
}

/** The error a batch longer than `maxBatchSize` gets as a whole, or undefined when it is within the bound. */
export const checkBatch = (
  batch: ReadonlyArray<unknown>,
  maxBatchSize: number
): JsonRpc.ErrorResponse | undefined =>
  batch.length <= maxBatchSize ? undefined : JsonRpc.failure(null, {
    code: McpError.codes.InvalidRequest,
    message: `Invalid request: a batch of ${batch.length} messages, more than ${maxBatchSize}`
  })
