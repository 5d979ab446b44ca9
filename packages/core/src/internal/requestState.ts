/**
 * The `requestState` of multi-round-trip requests (2026-07-28): the answers gathered so far,
 * bound to the request they belong to, stamped with the time they were issued and authenticated
 * with HMAC-SHA256, so the server keeps no memory between attempts, and a tampered state, or one
 * older than the maximum age, is refused.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

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

const fromBase64Url = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

/** How long a request state is accepted after it was issued, by default. */
export const defaultMaxAge: Duration.Duration = Duration.minutes(10)

/** A signer and verifier of request states under one key. */
export interface Signer {
  /** Seals a state, stamped with the current time. */
  readonly sign: (state: State) => Effect.Effect<string>
  /** Opens a sealed state: undefined when it was not issued under this key, is malformed, or is too old. */
  readonly verify: (token: string) => Effect.Effect<State | undefined>
}

type Key = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

/**
 * A signer whose key is imported, from the configured secret or else from random bytes, on first use: a server that
 * never signs a state holds no key.
 */
class HmacSigner implements Signer {
  #key: Promise<Key> | undefined

  constructor(private readonly secret: string | Uint8Array | undefined, private readonly maxAgeMs: number) {}

  #cryptoKey(): Promise<Key> {
    return (this.#key ??= globalThis.crypto.subtle.importKey(
      "raw",
      this.secret === undefined
        ? globalThis.crypto.getRandomValues(new Uint8Array(32))
        : typeof this.secret === "string"
        ? encoder.encode(this.secret)
        : this.secret,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"]
    ))
  }

  sign(state: State): Effect.Effect<string> {
    return Effect.flatMap(Clock.currentTimeMillis, (issuedAt) =>
      Effect.promise(async () => {
        const payload = encoder.encode(JSON.stringify([state.method, state.target, state.answers, issuedAt]))
        const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await this.#cryptoKey(), payload))
        return `${toBase64Url(payload)}.${toBase64Url(mac)}`
      }))
  }

  verify(token: string): Effect.Effect<State | undefined> {
    return Effect.flatMap(this.#open(token), (opened) =>
      opened === undefined
        ? Effect.succeed(undefined)
        : Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const age = now - opened.issuedAt
          return age <= this.maxAgeMs
            ? Effect.succeed(opened.state)
            : Effect.as(
              Effect.logDebug(
                `effect-mcp: refused a requestState issued ${age} ms ago (requestStateMaxAge: ${this.maxAgeMs} ms)`
              ),
              undefined
            )
        }))
  }

  /** The state and the time it was issued, when the token was issued under this key and is well formed. */
  #open(token: string): Effect.Effect<{ readonly state: State; readonly issuedAt: number } | undefined> {
    return Effect.promise(async () => {
      const [p, m, extra] = token.split(".")
      if (p === undefined || m === undefined || extra !== undefined) return undefined
      const payload = fromBase64Url(p)
      const mac = fromBase64Url(m)
      if (payload === undefined || mac === undefined) return undefined
      const ok = await globalThis.crypto.subtle.verify("HMAC", await this.#cryptoKey(), mac, payload)
      if (!ok) return undefined
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
    })
  }
}

/**
 * Makes a signer from a secret (a random one, per signer, when none is configured) and the longest a state is
 * accepted after it was issued (default 10 minutes).
 */
export const make = (secret: string | Uint8Array | undefined, maxAge?: Duration.DurationInput): Signer =>
  new HmacSigner(secret, Duration.toMillis(maxAge ?? defaultMaxAge))
