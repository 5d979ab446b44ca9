/**
 * The `requestState` of multi-round-trip requests (2026-07-28): the answers gathered so far,
 * bound to the request they belong to, stamped with the time they were issued and authenticated
 * with HMAC-SHA256, so the server keeps no memory between attempts, and a tampered state, or one
 * older than the maximum age, is refused.
 */
import { McpError } from "@effect-mcp/schema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as RequestStateKeys from "../RequestStateKeys.js"

/** What a request state carries. */
export interface State {
  /** The method the state belongs to. */
  readonly method: string
  /** The tool, prompt or resource the state belongs to. */
  readonly target: string
  /** The answers to earlier input requests, by key. */
  readonly answers: Readonly<Record<string, unknown>>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const toBase64Url = (bytes: Uint8Array): string => {
  let binary = ""
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** Bytes on an `ArrayBuffer` of their own, as Web Crypto's `BufferSource` asks in the DOM library's types. */
type Bytes = Uint8Array<ArrayBuffer>

const fromBase64Url = (text: string): Bytes | undefined => {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

/** How long a request state is accepted after it was issued, by default. */
export const defaultMaxAge: Duration.Duration = Duration.minutes(10)

/** A signer and verifier of request states. */
export interface Signer {
  /** Seals a state, stamped with the current time. */
  readonly sign: (state: State) => Effect.Effect<string, McpError.McpError>
  /** Opens a sealed state: undefined when it was not issued under an accepted key, is malformed, or is too old. */
  readonly verify: (token: string) => Effect.Effect<State | undefined, McpError.McpError>
}

type Key = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

// The secret is copied: a caller's bytes may sit on a SharedArrayBuffer, which Web Crypto refuses.
const importKey = (secret: Uint8Array): Promise<Key> =>
  globalThis.crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify"
  ])

/** A state sealed under a key: its payload and its MAC, each in Base64url. */
const seal = async (key: Key, state: State, issuedAt: number): Promise<string> => {
  const payload = encoder.encode(JSON.stringify([state.method, state.target, state.answers, issuedAt]))
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, payload))
  return `${toBase64Url(payload)}.${toBase64Url(mac)}`
}

/** A sealed token split into its payload and MAC; undefined when it is not two Base64url parts. */
const split = (token: string): { readonly payload: Bytes; readonly mac: Bytes } | undefined => {
  const [p, m, extra] = token.split(".")
  if (p === undefined || m === undefined || extra !== undefined) return undefined
  const payload = fromBase64Url(p)
  const mac = fromBase64Url(m)
  return payload === undefined || mac === undefined ? undefined : { payload, mac }
}

/** The state a verified payload carries, and the time it was issued. */
const parse = (payload: Uint8Array): { readonly state: State; readonly issuedAt: number } | undefined => {
  try {
    const [method, target, answers, issuedAt] = JSON.parse(decoder.decode(payload)) as [
      string,
      string,
      Record<string, unknown>,
      unknown
    ]
    // A state sealed before states carried their issue time (under a configured key) has no age: refused.
    if (typeof issuedAt !== "number") return undefined
    return { state: { method, target, answers }, issuedAt }
  } catch {
    return undefined
  }
}

type Opened = { readonly state: State; readonly issuedAt: number } | undefined

/** The state of an opened token, when it is not older than the maximum age. */
const fresh = (maxAgeMs: number) => (opened: Opened): Effect.Effect<State | undefined> =>
  opened === undefined
    ? Effect.succeed(undefined)
    : Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const age = now - opened.issuedAt
      return age <= maxAgeMs
        ? Effect.succeed(opened.state)
        : Effect.as(
          Effect.logDebug(
            `effect-mcp: refused a requestState issued ${age} ms ago (requestStateMaxAge: ${maxAgeMs} ms)`
          ),
          undefined
        )
    })

/**
 * A signer whose key is imported, from the configured secret or else from random bytes, on first use: a server that
 * never signs a state holds no key.
 */
class HmacSigner implements Signer {
  #key: Promise<Key> | undefined

  constructor(private readonly secret: string | Uint8Array | undefined, private readonly maxAgeMs: number) {}

  #cryptoKey(): Promise<Key> {
    return (this.#key ??= importKey(
      this.secret === undefined
        ? globalThis.crypto.getRandomValues(new Uint8Array(32))
        : typeof this.secret === "string"
        ? encoder.encode(this.secret)
        : this.secret
    ))
  }

  sign(state: State): Effect.Effect<string> {
    return Effect.flatMap(
      Clock.currentTimeMillis,
      (issuedAt) => Effect.promise(async () => seal(await this.#cryptoKey(), state, issuedAt))
    )
  }

  verify(token: string): Effect.Effect<State | undefined> {
    return Effect.flatMap(
      Effect.promise(async (): Promise<Opened> => {
        const parts = split(token)
        if (parts === undefined) return undefined
        const ok = await globalThis.crypto.subtle.verify("HMAC", await this.#cryptoKey(), parts.mac, parts.payload)
        return ok ? parse(parts.payload) : undefined
      }),
      fresh(this.maxAgeMs)
    )
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

const keysUnavailable = (error: RequestStateKeys.RequestStateKeyError) =>
  Effect.zipRight(
    Effect.logWarning("effect-mcp: the requestState keys are unavailable", error),
    Effect.fail(new McpError.InternalError({ message: "The requestState keys are unavailable; retry later" }))
  )

/**
 * A signer over a key ring (`RequestStateKeys`): it signs with the ring's current key and accepts a state signed with
 * any key of the ring. Imported keys are kept by id while their key is in the ring.
 */
class RingSigner implements Signer {
  readonly #imported = new Map<string, { readonly secret: Uint8Array; readonly key: Promise<Key> }>()

  constructor(private readonly keys: RequestStateKeys.RequestStateKeysService, private readonly maxAgeMs: number) {}

  #cryptoKey(key: RequestStateKeys.Key): Promise<Key> {
    const known = this.#imported.get(key.id)
    if (known !== undefined && sameBytes(known.secret, key.secret)) return known.key
    const imported = importKey(key.secret)
    this.#imported.set(key.id, { secret: key.secret, key: imported })
    return imported
  }

  #ring(): Effect.Effect<RequestStateKeys.KeyRing, McpError.McpError> {
    return Effect.map(Effect.catchAll(this.keys.keyRing, keysUnavailable), (ring) => {
      if (this.#imported.size > ring.accepted.length) {
        for (const id of this.#imported.keys()) if (!ring.accepted.some((k) => k.id === id)) this.#imported.delete(id)
      }
      return ring
    })
  }

  sign(state: State): Effect.Effect<string, McpError.McpError> {
    return Effect.flatMap(this.#ring(), (ring) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (issuedAt) => Effect.promise(async () => seal(await this.#cryptoKey(ring.current), state, issuedAt))
      ))
  }

  verify(token: string): Effect.Effect<State | undefined, McpError.McpError> {
    return Effect.flatMap(this.#ring(), (ring) =>
      Effect.flatMap(
        Effect.promise(async (): Promise<Opened> => {
          const parts = split(token)
          if (parts === undefined) return undefined
          for (const key of ring.accepted) {
            const cryptoKey = await this.#cryptoKey(key)
            if (await globalThis.crypto.subtle.verify("HMAC", cryptoKey, parts.mac, parts.payload)) {
              return parse(parts.payload)
            }
          }
          return undefined
        }),
        fresh(this.maxAgeMs)
      ))
  }
}

/**
 * Makes a signer from a secret (a random one, per signer, when none is configured) and the longest a state is
 * accepted after it was issued (default 10 minutes).
 */
export const make = (secret: string | Uint8Array | undefined, maxAge?: Duration.DurationInput): Signer =>
  new HmacSigner(secret, Duration.toMillis(maxAge ?? defaultMaxAge))

/** Makes a signer over a key ring, with the longest a state is accepted after it was issued (default 10 minutes). */
export const fromKeys = (
  keys: RequestStateKeys.RequestStateKeysService,
  maxAge?: Duration.DurationInput
): Signer => new RingSigner(keys, Duration.toMillis(maxAge ?? defaultMaxAge))
