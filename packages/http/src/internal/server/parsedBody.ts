/**
 * A body that a framework read before the endpoint (Express's `express.json()`, `express.text()`, `express.raw()`,
 * Fastify's content-type parsers): its stream is consumed, so the endpoint takes what the framework made of it
 * instead, as text under the same body limit. Parsed JSON is written back as JSON text, which the endpoint parses
 * again: the same value.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { BodyTooLarge, BodyUnreadable } from "./exchange.js"

/** Why a consumed body that left nothing behind cannot be read. */
const consumedReason = "the request's body was read before the endpoint, which was given nothing of it: " +
  "mount the endpoint before the body parser, or pass the parsed body"

/** Text, bytes or a parsed JSON value as the body's UTF-8 text, refused past `limit` bytes. */
export const text = (body: unknown, limit: number): Effect.Effect<string, BodyTooLarge | BodyUnreadable> => {
  if (body === undefined) return Effect.fail(new BodyUnreadable({ cause: consumedReason }))
  const written: Either.Either<string, unknown> = typeof body === "string"
    ? Either.right(body)
    : body instanceof Uint8Array
    ? Either.right(new TextDecoder().decode(body))
    : Either.try(() => JSON.stringify(body))
  if (Either.isLeft(written)) return Effect.fail(new BodyUnreadable({ cause: written.left }))
  // JSON.stringify gives undefined (not text) for a function or a symbol: nothing a body parser makes.
  if (typeof written.right !== "string") {
    return Effect.fail(new BodyUnreadable({ cause: "the parsed body is not JSON" }))
  }
  // A UTF-16 unit is one to three UTF-8 bytes: only a text near the limit is measured.
  if (written.right.length > limit || written.right.length * 3 > limit && byteLength(written.right) > limit) {
    return Effect.fail(new BodyTooLarge({ limit }))
  }
  return Effect.succeed(written.right)
}

const byteLength = (s: string): number => new TextEncoder().encode(s).length
