/**
 * `RequestStateKeys` over Redis: one key ring, in the hash `<prefix>requestState:keys`, that every process reads, so a
 * `requestState` signed by one verifies on any other. The first process to read it makes its first key; rotation is
 * one atomic script: the first read after `rotateEvery` makes a new current key and keeps the one it replaces as
 * accepted, so states signed just before a rotation still verify everywhere.
 */
import { RequestStateKeys } from "@effect-mcp/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RedisConnection, type RedisConnectionService } from "./RedisConnection.js"

/** Settings of the shared key ring. */
export interface Options {
  /**
   * How often a new random key replaces the current one (default: never). Keep it at least the server's
   * `requestStateMaxAge`: a state is accepted under the current key and the one before.
   */
  readonly rotateEvery?: Duration.DurationInput
}

// KEYS[1]: the ring's hash. ARGV: now (ms), rotateEvery (ms, 0 for never), a fresh secret (Base64) in case one is made.
// Answers: current id, current secret, previous id, previous secret ("" when none).
const ringScript = `
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then
  redis.call('HSET', KEYS[1], 'id', '0', 'secret', ARGV[3], 'rotatedAt', ARGV[1])
  return {'0', ARGV[3], '', ''}
end
local t = {}
for i = 1, #h, 2 do t[h[i]] = h[i + 1] end
local every = tonumber(ARGV[2])
if every > 0 and tonumber(ARGV[1]) - tonumber(t.rotatedAt) >= every then
  local id = tostring(tonumber(t.id) + 1)
  redis.call('HSET', KEYS[1], 'id', id, 'secret', ARGV[3], 'rotatedAt', ARGV[1], 'previousId', t.id, 'previousSecret', t.secret)
  return {id, ARGV[3], t.id, t.secret}
end
return {t.id, t.secret, t.previousId or '', t.previousSecret or ''}
`

const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")
const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"))

/** Makes the shared key ring over a connection. */
export const make = (
  connection: RedisConnectionService,
  options: Options = {}
): RequestStateKeys.RequestStateKeysService => {
  const key = `${connection.prefix}requestState:keys`
  const every = options.rotateEvery === undefined ? 0 : Duration.toMillis(options.rotateEvery)
  return {
    keyRing: Effect.flatMap(
      Clock.currentTimeMillis,
      (now) =>
        connection.run((client) =>
          client.eval(ringScript, 1, key, String(now), String(every), toBase64(RequestStateKeys.randomSecret()))
        ).pipe(
          Effect.mapError((error) => new RequestStateKeys.RequestStateKeyError({ reason: error.reason, cause: error })),
          Effect.flatMap((answer) => {
            if (!Array.isArray(answer) || answer.length !== 4 || !answer.every((a) => typeof a === "string")) {
              return Effect.fail(
                new RequestStateKeys.RequestStateKeyError({ reason: `The key ring at ${key} is not one` })
              )
            }
            const [id, secret, previousId, previousSecret] = answer as [string, string, string, string]
            const current = { id, secret: fromBase64(secret) }
            return Effect.succeed({
              current,
              accepted: previousId === ""
                ? [current]
                : [current, { id: previousId, secret: fromBase64(previousSecret) }]
            })
          })
        )
    )
  }
}

/** The shared key ring over the connection in context. */
export const layer = (
  options: Options = {}
): Layer.Layer<RequestStateKeys.RequestStateKeys, never, RedisConnection> =>
  Layer.effect(RequestStateKeys.RequestStateKeys, Effect.map(RedisConnection, (c) => make(c, options)))
