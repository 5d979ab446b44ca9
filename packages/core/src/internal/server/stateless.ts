/**
 * The 2026-07-28 era: each request carries its own revision, client capabilities, client info and log level in its
 * `_meta`, and the session keeps nothing between requests. A handler that asks the client for input it has no answer
 * to ends the attempt with an `input_required` result, whose signed `requestState` carries every earlier answer: the
 * retry replays the handler with them. Results are spelled as 2026 wants them (`resultType`, the server's identity,
 * cache hints).
 */
import { Codec, type JsonRpc, type Mcp, McpError, type Method, Revision } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as RequestContext from "../../RequestContext.js"
import type * as Transport from "../../Transport.js"
import type { AskedMethod, Peer } from "../requestContextImpl.js"
import { admit, type Admitted, contextOf, encodeResult, metaOf, type Reply } from "./dispatch.js"
import { invalidParams, metaKeys, methodNotFound, record, tasksExtension } from "./meta.js"
import type { CacheableMethod } from "./service.js"
import type { SessionState } from "./state.js"
import { extensionHandlers } from "./tasks.js"

/** A handler under 2026-07-28 needs an answer the client has not given yet: ends the attempt with input_required. */
class InputRequired {
  constructor(readonly key: string, readonly request: unknown) {}
}

const inputTypes = {
  "elicitation/create": { request: "ElicitRequest", result: "ElicitResult" },
  "sampling/createMessage": { request: "CreateMessageRequest", result: "CreateMessageResult" },
  "roots/list": { request: "ListRootsRequest", result: "ListRootsResult" }
} as const

const noAnswers: Readonly<Record<string, unknown>> = Object.freeze({})

/**
 * The client as one 2026-07-28 request round sees it: from the request's `_meta`, with the answers gathered so far
 * (earlier rounds' signed state plus this round's responses). Asking for input it has no answer to ends the round
 * with `input_required`. One object per round, its operations on the prototype.
 */
class StatelessPeer implements Peer {
  readonly capabilities: Mcp.ClientCapabilities
  readonly clientInfo: Mcp.Implementation | undefined
  readonly #level: unknown
  #asked = 0

  constructor(
    meta: Record<string, unknown>,
    private readonly answers: Readonly<Record<string, unknown>>,
    private readonly rev: Revision.Revision
  ) {
    this.capabilities = record(meta[metaKeys.clientCapabilities]) as Mcp.ClientCapabilities
    this.clientInfo = meta[metaKeys.clientInfo] as Mcp.Implementation | undefined
    this.#level = meta[metaKeys.logLevel]
  }

  logLevel(): RequestContext.LoggingLevel | null {
    return typeof this.#level === "string" ? (this.#level as RequestContext.LoggingLevel) : null
  }

  ask<M extends AskedMethod>(
    askMethod: M,
    askParams: unknown,
    required: Record<string, unknown>,
    satisfied: boolean
  ): Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError> {
    return Effect.suspend((): Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError> => {
      if (!satisfied) {
        return Effect.fail(
          new McpError.MissingRequiredClientCapability({
            message: `${askMethod} needs a client capability this request did not declare`,
            requiredCapabilities: required
          })
        )
      }
      const types = inputTypes[askMethod as keyof typeof inputTypes]
      const key = `input-${this.#asked++}`
      if (key in this.answers) {
        const answer = Codec.decodeAs(this.rev, types.result, this.answers[key])
        return Either.isRight(answer)
          ? Effect.succeed(answer.right as Method.ServerRequests[M]["result"]) // inputTypes names M's result type
          : Effect.fail(invalidParams(`Invalid input response ${key}: ${Codec.describe(answer.left)}`))
      }
      const encoded = Codec.encode(this.rev, types.request, { method: askMethod, params: askParams })
      // A defect on purpose, not a typed failure: it must leave the user's handler whatever error handlers it has
      // (`elicit(...).pipe(Effect.mapError(...))` would turn a failure into a tool error result), and `elicit`'s
      // public error type stays McpError. `run` below takes exactly this defect back and answers input_required.
      return Either.isRight(encoded)
        ? Effect.die(new InputRequired(key, encoded.right))
        : Effect.fail(invalidParams(`Invalid ${askMethod} params: ${Codec.describe(encoded.left)}`))
    })
  }
}

/** The peer of every stateless extension request: it can be asked nothing. */
const noPeer: Peer = {
  capabilities: {},
  clientInfo: undefined,
  logLevel: () => null,
  ask: (m) => Effect.fail(invalidParams(`${m} is not available here`))
}

const cacheable: ReadonlySet<string> = new Set<CacheableMethod>([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover"
])

/** The cache hints of a cacheable method's results (the server's `cache` option). */
const cacheOf = (session: SessionState, method: string) => {
  const cache = session.server.options.cache
  const own = cache?.methods?.[method as CacheableMethod]
  return {
    ttlMs: own?.ttlMs ?? cache?.ttlMs ?? 0,
    cacheScope: own?.scope ?? cache?.scope ?? "private"
  }
}

/** The result as 2026-07-28 spells it: `resultType`, the server's identity, cache hints. */
const decorate = (session: SessionState, method: string, result: unknown): Record<string, unknown> => {
  const r = record(result)
  return {
    ...(cacheable.has(method) ? cacheOf(session, method) : {}),
    ...r,
    resultType: typeof r.resultType === "string" ? r.resultType : "complete",
    _meta: { ...record(r._meta), [metaKeys.serverInfo]: session.server.info }
  }
}

/** Runs an admitted request: its handler, given the answers gathered so far, replayed from its `requestState`. */
const run: Admitted = (session, request, frame, rev, handler, decoded) => {
  const method = request.method
  const params = decoded as Record<string, unknown> | undefined
  const meta = metaOf(params)
  const target = String(params?.name ?? params?.uri ?? "")
  /** Runs the handler, given the answers gathered so far: earlier rounds' signed state plus this round's responses. */
  const withAnswers = (answers: Readonly<Record<string, unknown>>) => {
    const peer = new StatelessPeer(meta, answers, rev)
    const ctx = contextOf(session, request, frame, rev, meta, peer)
    return handler(session, params, ctx).pipe(
      Effect.catchAllCause((cause) => {
        const pending = Chunk.findFirst(Cause.defects(cause), (d): d is InputRequired => d instanceof InputRequired)
        if (pending._tag === "None") return Effect.failCause(cause)
        return Effect.map(
          session.runtime.requestState.sign({ method, target, answers }),
          (requestState): unknown => ({
            resultType: "input_required",
            inputRequests: { [pending.value.key]: pending.value.request },
            requestState
          })
        )
      }),
      Effect.flatMap((result) => encodeResult(method, rev, decorate(session, method, result)))
    )
  }
  const responses = params?.inputResponses === undefined ? noAnswers : record(params.inputResponses)
  if (typeof params?.requestState !== "string") return withAnswers(responses)
  return Effect.flatMap(
    session.runtime.requestState.verify(params.requestState),
    (state) =>
      state === undefined || state.method !== method || state.target !== target
        ? Effect.fail(invalidParams("Invalid requestState: it was not issued by this server for this request"))
        : withAnswers({ ...state.answers, ...responses })
  )
}

/** Answers a request of the 2026-07-28 era (`requested` is the revision it asked for). */
export const dispatch = (
  session: SessionState,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  requested: unknown
): Reply => {
  const method = request.method
  if (!Revision.isRevision(requested) || !Revision.isStateless(requested)) {
    return Effect.fail(
      new McpError.UnsupportedProtocolVersion({
        message: `Unsupported protocol version: ${McpError.quote(requested)}`,
        supported: [...Revision.all],
        requested: McpError.quote(requested)
      })
    )
  }
  const rev = requested
  const extension = extensionHandlers[method]
  if (extension !== undefined) {
    if (record(record(session.server.capabilities()).extensions)[tasksExtension] === undefined) {
      return Effect.fail(methodNotFound(method))
    }
    const params = record(request.params)
    if (typeof params.taskId !== "string") {
      return Effect.fail(invalidParams(`Invalid params for ${method}: taskId must be a string`))
    }
    const ctx = contextOf(session, request, frame, rev, metaOf(request.params), noPeer)
    return Effect.map(
      extension(session, params as { readonly taskId: string }, ctx),
      (result) => decorate(session, method, result)
    )
  }
  return admit(session, request, frame, rev, session.server.capabilities(), run)
}
