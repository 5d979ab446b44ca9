/**
 * The service every handler runs with: what is known about the request (revision, client,
 * `_meta`, progress token, identity) and the operations a handler may perform on its behalf —
 * progress, logging, and the server→client requests `elicit`, `sample` and `listRoots`.
 *
 * The same handler code runs in every era: on handshake revisions `elicit` sends a real
 * server→client request; on stateless revisions it becomes part of a multi-round-trip result.
 */
import type { JsonRpc, Mcp, McpError, Revision } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import * as Elicitation from "./Elicitation.js"
import type { AuthInfo } from "./Transport.js"

/** A logging level, least to most severe. */
export type LoggingLevel = Mcp.LoggingLevel

/** The severity order of logging levels. */
export const levels: ReadonlyArray<LoggingLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

/** Whether a message at `level` passes a threshold. */
export const passes = (level: LoggingLevel, threshold: LoggingLevel | undefined): boolean =>
  threshold === undefined || levels.indexOf(level) >= levels.indexOf(threshold)

/** What a handler knows and may do. */
export interface RequestContextService {
  /** The id of the request being handled. */
  readonly requestId: JsonRpc.RequestId
  /** The method being handled. */
  readonly method: string
  /** The revision the request speaks. */
  readonly revision: Revision.Revision
  /** The client's self-description, when it sent one. */
  readonly clientInfo: Mcp.Implementation | undefined
  /** The capabilities the client declared. */
  readonly clientCapabilities: Mcp.ClientCapabilities
  /** The request's `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>
  /** The progress token the client attached, if any. */
  readonly progressToken: Mcp.ProgressToken | undefined
  /** The identity the transport verified, if any. */
  readonly auth: AuthInfo | undefined
  /** Aborted when the request is cancelled (for promise-based code inside a handler). */
  readonly signal: AbortSignal
  /** Reports progress; a no-op when the client sent no progress token. */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
  /** Sends a log message to the client, if the client's log level lets it through. */
  readonly log: (level: LoggingLevel, data: unknown, logger?: string) => Effect.Effect<void>
  /** Asks the user, through the client, for input (form or URL mode). */
  readonly elicit: (params: Mcp.ElicitRequestParams) => Effect.Effect<Mcp.ElicitResult, McpError.McpError>
  /** Asks the client's model for a completion. */
  readonly sample: (params: Mcp.CreateMessageRequestParams) => Effect.Effect<Mcp.CreateMessageResult, McpError.McpError>
  /** Asks the client for its roots. */
  readonly listRoots: () => Effect.Effect<Mcp.ListRootsResult, McpError.McpError>
}

/** The context of the request a handler is running for. */
export class RequestContext extends Context.Tag("@effect-mcp/core/RequestContext")<
  RequestContext,
  RequestContextService
>() {}

/** Reports progress for the current request (a no-op without a progress token). */
export const progress = (value: number, total?: number, message?: string): Effect.Effect<void, never, RequestContext> =>
  Effect.flatMap(RequestContext, (ctx) => ctx.progress(value, total, message))

/** Sends a log message for the current request. */
export const log = (level: LoggingLevel, data: unknown, logger?: string): Effect.Effect<void, never, RequestContext> =>
  Effect.flatMap(RequestContext, (ctx) => ctx.log(level, data, logger))

/**
 * Elicits input from the user through the client: raw (the request's params in, the client's result out), or typed
 * (a message and a form schema in, the answer decoded into the schema's type out; see `Elicitation`).
 */
export function elicit<A, I extends Elicitation.Fields>(
  message: string,
  schema: Schema.Schema<A, I, never>
): Effect.Effect<Elicitation.Outcome<A>, Elicitation.ElicitationError | McpError.McpError, RequestContext>
export function elicit(
  params: Mcp.ElicitRequestParams
): Effect.Effect<Mcp.ElicitResult, McpError.McpError, RequestContext>
export function elicit<A, I extends Elicitation.Fields>(
  messageOrParams: string | Mcp.ElicitRequestParams,
  schema?: Schema.Schema<A, I, never>
): Effect.Effect<
  Elicitation.Outcome<A> | Mcp.ElicitResult,
  Elicitation.ElicitationError | McpError.McpError,
  RequestContext
> {
  return Effect.flatMap(
    RequestContext,
    (ctx): Effect.Effect<
      Elicitation.Outcome<A> | Mcp.ElicitResult,
      Elicitation.ElicitationError | McpError.McpError
    > =>
      typeof messageOrParams === "string"
        ? schema === undefined
          ? Effect.die(new TypeError("RequestContext.elicit(message, schema) needs a schema"))
          : Elicitation.elicitWith(ctx, messageOrParams, schema)
        : ctx.elicit(messageOrParams)
  )
}

/** Samples the client's model. */
export const sample = (
  params: Mcp.CreateMessageRequestParams
): Effect.Effect<Mcp.CreateMessageResult, McpError.McpError, RequestContext> =>
  Effect.flatMap(RequestContext, (ctx) => ctx.sample(params))

/** Lists the client's roots. */
export const listRoots: Effect.Effect<Mcp.ListRootsResult, McpError.McpError, RequestContext> = Effect.flatMap(
  RequestContext,
  (ctx) => ctx.listRoots()
)
