/**
 * The `requestState` of multi-round-trip requests (2026-07-28): the answers gathered so far,
 * bound to the request they belong to and authenticated with HMAC-SHA256, so the server keeps
 * no memory between attempts and a tampered state is refused.
 */
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

/** A signer and verifier of request states under one key. */
export interface Signer {
  readonly sign: (state: State) => Effect.Effect<string>
  readonly verify: (token: string) => Effect.Effect<State | undefined>
}

type Key = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

/**
 * A signer whose key is imported, from the configured secret or else from random bytes, on first use: a server that
 * never signs a state holds no key.
 */
class HmacSigner implements Signer {
  #key: Promise<Key> | undefined

  constructor(private readonly secret: string | Uint8Array | undefined) {}

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
    return Effect.promise(async () => {
      const payload = encoder.encode(JSON.stringify([state.method, state.target, state.answers]))
      const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await this.#cryptoKey(), payload))
      return `${toBase64Url(payload)}.${toBase64Url(mac)}`
    })
  }

  verify(token: string): Effect.Effect<State | undefined> {
    return Effect.promise(async (): Promise<State | undefined> => {
      const [p, m, extra] = token.split(".")
      if (p === undefined || m === undefined || extra !== undefined) return undefined
      const payload = fromBase64Url(p)
      const mac = fromBase64Url(m)
      if (payload === undefined || mac === undefined) return undefined
      const ok = await globalThis.crypto.subtle.verify("HMAC", await this.#cryptoKey(), mac, payload)
      if (!ok) return undefined
      try {
        const [method, target, answers] = JSON.parse(decoder.decode(payload)) as [
          string,
          string,
          Record<string, unknown>
        ]
        return { method, target, answers }
      } catch {
        return undefined
      }
    })
  }
}

/** Makes a signer from a secret (a random one, per signer, when none is configured). */
export const make = (secret: string | Uint8Array | undefined): Signer => new HmacSigner(secret)
