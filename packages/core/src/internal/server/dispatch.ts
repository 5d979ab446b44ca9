/**
 * What every era does around a method handler: the gate a request passes before its handler runs, the request's
 * context, and the encoding of its result for the request's revision.
 */
import { Codec, type JsonRpc, type Mcp, McpError, Method, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Transport from "../../Transport.js"
import { type Peer, RequestContextImpl } from "../requestContextImpl.js"
import type { AnyHandler } from "./handler.js"
import { invalidParams, methodNotFound, record } from "./meta.js"
import { handlerOf } from "./methods.js"
import type { SessionState } from "./state.js"

/** The answer to a request, as the engine sends it. */
export type Reply = Effect.Effect<Record<string, unknown>, McpError.McpError>

/**
 * What runs a request the gate admitted: its handler, given the params decoded for `rev`. A module-level function
 * of each era, so that admitting a request allocates nothing.
 */
export type Admitted = (
  session: SessionState,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  rev: Revision.Revision,
  handler: AnyHandler,
  params: unknown
) => Reply

/**
 * The gate every era shares: what a request must satisfy before its handler runs. Its method is one the client sends
 * in revision `rev`, the server declared the capability it needs, and the method table answers it (else -32601); its
 * params decode as `rev` spells them (else -32602). Then `run` runs it.
 */
export const admit = (
  session: SessionState,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  rev: Revision.Revision,
  capabilities: Mcp.ServerCapabilities,
  run: Admitted
): Reply => {
  const method = request.method
  const facts = Method.info(method)
  if (facts === undefined || facts.kind !== "request" || facts.from === "server" || !facts.revisions.includes(rev)) {
    return Effect.fail(methodNotFound(method))
  }
  const cap = Method.requirement(method, rev)
  if (cap !== undefined && cap.of === "server" && !Method.hasCapability(capabilities, cap.path)) {
    return Effect.fail(methodNotFound(method))
  }
  const handler = handlerOf(method)
  if (handler === undefined) return Effect.fail(methodNotFound(method))
  const decoded = Codec.decodeParams(method, rev, request.params)
  if (Either.isLeft(decoded)) {
    return Effect.fail(invalidParams(`Invalid params for ${method}: ${Codec.describe(decoded.left)}`))
  }
  return run(session, request, frame, rev, handler, decoded.right)
}

/** The `_meta` of a request's params (an empty record when it has none). */
export const metaOf = (params: unknown): Record<string, unknown> =>
  record(typeof params === "object" && params !== null ? (params as { readonly _meta?: unknown })._meta : undefined)

/** The context of one request, for its handler. */
export const contextOf = (
  session: SessionState,
  request: JsonRpc.Request,
  frame: Transport.Frame,
  rev: Revision.Revision,
  meta: Record<string, unknown>,
  peer: Peer
): RequestContextImpl =>
  new RequestContextImpl(
    frame.requestId ?? request.id,
    request.id,
    request.method,
    rev,
    meta,
    frame.auth,
    session,
    peer
  )

/**
 * A handler's result encoded for `rev`. A tool result the revision cannot carry (audio content on 2024-11-05, say)
 * becomes a tool error the client and its model can read; any other unencodable result is the server's bug.
 */
export const encodeResult = (method: string, rev: Revision.Revision, result: unknown): Reply => {
  // A 2026 task result (`Result & Task`) belongs to an extension no revision schema describes: sent as built.
  if (method === "tools/call" && record(result).resultType === "task") return Effect.succeed(record(result))
  const created = method === "tools/call" && typeof record(result).task === "object"
  const encoded = created ? Codec.encode(rev, "CreateTaskResult", result) : Codec.encodeResult(method, rev, result)
  if (Either.isRight(encoded)) return Effect.succeed(encoded.right as Record<string, unknown>)
  const logged = Effect.logError(
    `effect-mcp: the result of ${method} cannot be encoded for ${rev}`,
    Codec.describe(encoded.left)
  )
  const unexpressible = Codec.encodeResult(method, rev, {
    content: [{
      type: "text",
      text:
        `The tool's result cannot be expressed in protocol revision ${rev} (it uses content or fields a later revision added)`
    }],
    isError: true
  })
  return method === "tools/call" && !created && Either.isRight(unexpressible)
    ? Effect.as(logged, unexpressible.right as Record<string, unknown>)
    : logged.pipe(Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" }))))
}
