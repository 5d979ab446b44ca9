/**
 * The services through which a client answers server→client requests. Providing one to
 * `McpClient.layer` declares the matching client capability; without it the request gets -32601.
 * On the stateless revision the same handlers answer the `inputRequests` of an `input_required`
 * result.
 */
import type { Mcp, McpError } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"

/** Answers `sampling/createMessage`: runs the client's model. */
export interface SamplingHandlerService {
  /** Whether the handler supports tool use in sampling (declares `sampling.tools`). */
  readonly tools?: boolean
  /** Produces the model's message. */
  readonly createMessage: (
    params: Mcp.CreateMessageRequestParams
  ) => Effect.Effect<Mcp.CreateMessageResult, McpError.McpError>
}

/** The client's sampling handler. */
export class SamplingHandler extends Context.Tag("@effect-mcp/core/SamplingHandler")<
  SamplingHandler,
  SamplingHandlerService
>() {}

/** Answers `elicitation/create`: asks the user. */
export interface ElicitationHandlerService {
  /** The modes the handler supports (default: form only). */
  readonly modes?: ReadonlyArray<"form" | "url">
  /** Asks the user and returns their answer. */
  readonly elicit: (params: Mcp.ElicitRequestParams) => Effect.Effect<Mcp.ElicitResult, McpError.McpError>
}

/** The client's elicitation handler. */
export class ElicitationHandler extends Context.Tag("@effect-mcp/core/ElicitationHandler")<
  ElicitationHandler,
  ElicitationHandlerService
>() {}

/** Answers `roots/list`, and tells the server when the roots change. */
export interface RootsProviderService {
  /** The current roots. */
  readonly roots: Effect.Effect<ReadonlyArray<Mcp.Root>>
  /** Emits whenever the roots change (sends `notifications/roots/list_changed`). */
  readonly changes?: Stream.Stream<void>
}

/** The client's roots. */
export class RootsProvider
  extends Context.Tag("@effect-mcp/core/RootsProvider")<RootsProvider, RootsProviderService>()
{}

/** A sampling handler Layer. */
export const sampling = (service: SamplingHandlerService): Layer.Layer<SamplingHandler> =>
  Layer.succeed(SamplingHandler, service)

/** An elicitation handler Layer. */
export const elicitation = (service: ElicitationHandlerService): Layer.Layer<ElicitationHandler> =>
  Layer.succeed(ElicitationHandler, service)

/** A roots provider Layer. */
export const roots = (service: RootsProviderService): Layer.Layer<RootsProvider> =>
  Layer.succeed(RootsProvider, service)
