/**
 * The keys that authenticate 2026-07-28 multi-round-trip `requestState`: new states are signed with the current key
 * and a state signed with any accepted key verifies, so a key can be rotated while states signed with the one before
 * are still in flight. Without a `RequestStateKeys` in context a server has one key (`McpServer.Options
 * .requestStateKey`, else random); processes that serve as one server share a key ring (`@effect-mcp/redis`), so
 * that a retry verifies on whichever process it reaches.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** One key: its id (unique within a ring) and its secret bytes. */
export interface Key {
  readonly id: string
  readonly secret: Uint8Array
}

/** The keys in use: new states are signed with `current`; states signed with any of `accepted` verify. */
export interface KeyRing {
  readonly current: Key
  /** Every key a state may have been signed with, `current` first. */
  readonly accepted: ReadonlyArray<Key>
}

/** The key ring could not be read (its backend is unreachable). */
export class RequestStateKeyError extends Data.TaggedError("RequestStateKeyError")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  /** The reason, as the error's message. */
  override get message(): string {
    return this.reason
  }
}

/** Where a server's request-state keys come from. */
export interface RequestStateKeysService {
  /** The key ring as it is now (rotated first when it is due). */
  readonly keyRing: Effect.Effect<KeyRing, RequestStateKeyError>
}

/** The request-state keys a server signs and verifies with. */
export class RequestStateKeys
  extends Context.Tag("@effect-mcp/core/RequestStateKeys")<RequestStateKeys, RequestStateKeysService>()
{}

/** Settings of the in-memory key ring. */
export interface MemoryOptions {
  /** The first key's secret (default: 32 random bytes). */
  readonly secret?: string | Uint8Array
  /**
   * How often a new random key replaces the current one (default: never). The key it replaces is still accepted
   * until the next rotation, so keep this at least `McpServer.Options.requestStateMaxAge`.
   */
  readonly rotateEvery?: Duration.DurationInput
}

/** 32 random bytes, as a new key's secret. */
export const randomSecret = (): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(32))

const secretBytes = (secret: string | Uint8Array | undefined): Uint8Array =>
  secret === undefined ? randomSecret() : typeof secret === "string" ? new TextEncoder().encode(secret) : secret

/** A key ring held in this process, rotated (when configured) on the first read after it is due. */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<RequestStateKeysService> =>
  Effect.map(Clock.currentTimeMillis, (start) => {
    const every = options.rotateEvery === undefined ? undefined : Duration.toMillis(options.rotateEvery)
    let generation = 0
    let rotatedAt = start
    let ring: KeyRing = (() => {
      const current = { id: "0", secret: secretBytes(options.secret) }
      return { current, accepted: [current] }
    })()
    return {
      keyRing: every === undefined ? Effect.succeed(ring) : Effect.map(Clock.currentTimeMillis, (now) => {
        if (now - rotatedAt >= every) {
          const current = { id: String(++generation), secret: randomSecret() }
          ring = { current, accepted: [current, ring.current] }
          rotatedAt = now
        }
        return ring
      })
    }
  })

/** The in-memory key ring as a Layer. */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<RequestStateKeys> =>
  Layer.effect(RequestStateKeys, makeMemory(options))
