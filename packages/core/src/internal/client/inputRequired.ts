/**
 * The 2026-07-28 `input_required` loop: a stateless request whose result asks for input (sampling, elicitation,
 * roots) is answered by the client's handlers and sent again with the answers and the server's `requestState`, at
 * most `maxInputRounds` times. The final result is decoded, kept by the list cache when it may be, and handed over
 * without the fields only this era's wire has (`withoutEraFields`).
 */
import { Codec, Json, type McpError, type Method } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import { CapabilityMissing, ProtocolViolation } from "../../Errors.js"
import type { CallOptions, McpClientError, Options } from "../../McpClient.js"
import type * as Engine from "../engine.js"
import { decodeResult, decodeType, withoutEraFields } from "./decode.js"
import * as ListCache from "./listCache.js"
import type { ServerRequestHandlers } from "./serverRequests.js"

/** What the loop needs of the client: its engine, its options, its handlers and its list cache. */
export interface InputRequiredClient extends ServerRequestHandlers, ListCache.ListCacheHolder {
  readonly engine: Engine.Engine
  readonly options: Options
}

/**
 * One stateless round: the request (with the answers to the last round's input requests), then the next round, or
 * the decoded result (kept under `cacheKey`, if any).
 */
export const round = <M extends keyof Method.ClientRequests>(
  client: InputRequiredClient,
  method: M,
  base: Record<string, unknown> | undefined,
  callOptions: CallOptions | undefined,
  cacheKey: string | undefined,
  n: number,
  extra: Record<string, unknown> | undefined
): Effect.Effect<Method.ClientRequests[M]["result"], McpClientError> =>
  Effect.flatMap(
    client.engine.request(method, extra === undefined ? base : { ...base, ...extra }, callOptions),
    (raw) => {
      if (raw.resultType !== "input_required") {
        if (cacheKey === undefined) return Effect.map(decodeResult(method, client.revision, raw), withoutEraFields)
        return Effect.flatMap(
          decodeResult(method, client.revision, raw),
          (result) => ListCache.store(client, cacheKey, result)
        )
      }
      const maxRounds = client.options.maxInputRounds ?? 8
      if (n >= maxRounds) {
        return Effect.fail(
          new ProtocolViolation({ reason: `${method} still required input after ${maxRounds} rounds` })
        )
      }
      return Effect.gen(function*() {
        const inputResponses: Record<string, unknown> = {}
        for (const [key, input] of Object.entries(Json.record(raw.inputRequests))) {
          inputResponses[key] = yield* answerInput(client, Json.record(input))
        }
        return yield* round(client, method, base, callOptions, cacheKey, n + 1, {
          inputResponses,
          ...(typeof raw.requestState === "string" ? { requestState: raw.requestState } : {})
        })
      })
    }
  )

/** The client's answer to one input request, from the matching handler (a handler it lacks is a missing capability). */
const answerInput = (
  client: ServerRequestHandlers,
  input: Record<string, unknown>
): Effect.Effect<unknown, McpClientError> => {
  const method = String(input.method)
  const params = input.params ?? {}
  const run = <P, A>(
    decoded: Either.Either<P, ParseResult.ParseError>,
    handler: (params: P) => Effect.Effect<A, McpError.McpError>
  ) =>
    Either.isLeft(decoded)
      ? Effect.fail(
        new ProtocolViolation({ reason: `invalid ${method} input request: ${Codec.describe(decoded.left)}` })
      )
      : handler(decoded.right)
  switch (method) {
    case "sampling/createMessage":
      return Option.isSome(client.sampling)
        ? run(decodeType("CreateMessageRequestParams", client.revision, params), client.sampling.value.createMessage)
        : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "sampling" }))
    case "elicitation/create":
      return Option.isSome(client.elicitation)
        ? run(decodeType("ElicitRequestParams", client.revision, params), client.elicitation.value.elicit)
        : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "elicitation" }))
    case "roots/list":
      return Option.isSome(client.roots)
        ? Effect.map(client.roots.value.roots, (r) => ({ roots: r }))
        : Effect.fail(new CapabilityMissing({ method, of: "client", capability: "roots" }))
    default:
      return Effect.fail(new ProtocolViolation({ reason: `unknown input request ${method}` }))
  }
}
