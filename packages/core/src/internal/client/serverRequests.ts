/**
 * The client's answers to the server's requests on handshake revisions (ping, sampling, elicitation, roots): the
 * params decoded for the connection's revision, the handler run, its result encoded for it. A request the client has
 * no handler for is -32601, a handler's McpError its JSON-RPC error.
 */
import { Codec, type JsonRpc, McpError, type Method, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ClientHandlers from "../../ClientHandlers.js"

/** The handlers a client was given, and the revision it answers in. */
export interface ServerRequestHandlers {
  readonly revision: Revision.Revision
  readonly sampling: Option.Option<ClientHandlers.SamplingHandlerService>
  readonly elicitation: Option.Option<ClientHandlers.ElicitationHandlerService>
  readonly roots: Option.Option<ClientHandlers.RootsProviderService>
}

const notFound = (method: string) =>
  Effect.fail<JsonRpc.ErrorObject>({ code: McpError.codes.MethodNotFound, message: `Method not found: ${method}` })

/**
 * Runs a handler of one server request: its params decoded, its result encoded, its McpError made a wire error (in
 * the client's revision when each happens).
 */
const answer = <M extends keyof Method.ServerRequests>(
  client: ServerRequestHandlers,
  method: M,
  params: unknown,
  run: (
    params: Method.ServerRequests[M]["params"]
  ) => Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError>
): Effect.Effect<Record<string, unknown>, JsonRpc.ErrorObject> => {
  const decoded = Codec.decodeParamsLenient(method, client.revision, params)
  if (Either.isLeft(decoded)) {
    return Effect.fail<JsonRpc.ErrorObject>({
      code: McpError.codes.InvalidParams,
      message: `Invalid params for ${method}: ${Codec.describe(decoded.left)}`
    })
  }
  return run(decoded.right as Method.ServerRequests[M]["params"]).pipe(
    Effect.flatMap((result) => {
      const encoded = Codec.encodeResultLenient(method, client.revision, result)
      return Either.isRight(encoded)
        ? Effect.succeed(encoded.right as Record<string, unknown>)
        : Effect.fail(
          new McpError.InternalError({ message: `Invalid ${method} result: ${Codec.describe(encoded.left)}` })
        )
    }),
    Effect.mapError((e) => (McpError.isMcpError(e) ? McpError.toWire(e, client.revision) : e))
  )
}

/** The client's answer to one request of the server. */
export const answerServerRequest = (
  client: ServerRequestHandlers,
  request: JsonRpc.Request
): Effect.Effect<Record<string, unknown>, JsonRpc.ErrorObject> => {
  switch (request.method) {
    case "ping":
      return Effect.succeed({})
    case "sampling/createMessage":
      return Option.isSome(client.sampling)
        ? answer(client, request.method, request.params, client.sampling.value.createMessage)
        : notFound(request.method)
    case "elicitation/create":
      return Option.isSome(client.elicitation)
        ? answer(client, request.method, request.params, client.elicitation.value.elicit)
        : notFound(request.method)
    case "roots/list": {
      const roots = client.roots
      return Option.isSome(roots)
        ? answer(client, request.method, request.params, () => Effect.map(roots.value.roots, (r) => ({ roots: r })))
        : notFound(request.method)
    }
    default:
      return notFound(request.method)
  }
}
