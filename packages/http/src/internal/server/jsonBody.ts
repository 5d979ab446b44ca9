/** Reading a POST body: bounded by the endpoint's limit (413 past it), then parsed as JSON (400 when it is not). */
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Wire from "../wire.js"
import type { Incoming, Reply } from "./exchange.js"
import * as Replies from "./reply.js"

/** Reads and parses a request's body: the JSON value, or the refusal to answer. */
export type JsonBody = (request: Incoming) => Effect.Effect<Either.Either<unknown, Reply>>

/** The body reader of an endpoint whose bodies are at most `maxBody` bytes. */
export const make = (maxBody: number): JsonBody => {
  const tooLarge = Replies.error(413, McpError.serverError(`Payload too large: the limit is ${maxBody} bytes`))
  const unreadable = Replies.error(400, new McpError.ParseError({ message: "Parse error: the body could not be read" }))
  return (request) =>
    Effect.match(request.readText(maxBody), {
      onFailure: (error) => Either.left(error._tag === "BodyTooLarge" ? tooLarge : unreadable),
      onSuccess: (text) =>
        Either.mapLeft(
          Wire.parseJson(text),
          (reason) => Replies.error(400, new McpError.ParseError({ message: `Parse error: ${reason}` }))
        )
    })
}
