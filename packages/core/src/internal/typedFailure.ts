/**
 * The typed failure of a prompt or a resource read on the wire. These methods have no `isError` result, so a
 * failure declared by the definition's failure schema travels as a JSON-RPC error: code -32000 (an application's
 * server error), the encoded value as JSON text in the message, and the value itself under
 * `data["effect-mcp/failure"]`, which a typed call decodes with the same schema.
 */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** The key of a JSON-RPC error's `data` that carries a typed failure. */
export const failureKey = "effect-mcp/failure"

/** The JSON-RPC error code of a typed failure. */
export const failureCode = McpError.codes.ServerError

/**
 * A typed failure as the error sent for it, or undefined when the failure schema does not encode it (the caller
 * then treats the value as a defect of the handler).
 */
export const encodeError = <F, FI>(
  failure: Schema.Schema<F, FI, never>,
  error: F
): McpError.JsonRpcError | undefined => {
  const encoded = Schema.encodeEither(failure)(error)
  if (Either.isLeft(encoded)) return undefined
  const value = encoded.right
  return new McpError.JsonRpcError({
    code: failureCode,
    message: typeof value === "string" ? value : JSON.stringify(value),
    data: { [failureKey]: value }
  })
}

/** Reads the typed failure a wire error carries with the definition's failure schema (None for any other error). */
export const decodeError = <F, FI>(
  failure: Schema.Schema<F, FI, never>
): (error: McpError.McpError) => Option.Option<F> => {
  const decode = Schema.decodeUnknownOption(failure)
  return (error) => {
    const data = "data" in error ? error.data : undefined
    if (error.code !== failureCode || typeof data !== "object" || data === null || !Object.hasOwn(data, failureKey)) {
      return Option.none()
    }
    return decode((data as Record<string, unknown>)[failureKey])
  }
}

/**
 * Fails with the error a typed failure is sent as; a value the failure schema does not encode (or a definition
 * without one) is the handler's bug: logged, and answered -32603 with nothing of it on the wire.
 */
export const fail = <F, FI>(
  failure: Schema.Schema<F, FI, never> | undefined,
  error: F,
  what: string
): Effect.Effect<never, McpError.McpError> => {
  const sent = failure === undefined ? undefined : encodeError(failure, error)
  return sent !== undefined
    ? Effect.fail(sent)
    : Effect.logError(`effect-mcp: ${what} failed with a value its failure schema does not encode`, error).pipe(
      Effect.zipRight(Effect.fail(new McpError.InternalError({ message: "Internal error" })))
    )
}
