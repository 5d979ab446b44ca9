/**
 * The requestState signer on its own, for what the wire tests leave open (each case kills mutants that survived
 * `pnpm mutation`, see docs/mutation.md): a configured key is used (as raw bytes or as text), a state's age counts
 * from a clock that is not at zero, a token with an extra segment, bad base64 or a non-numeric issue time is refused
 * without a defect, and a refusal for age says how old the state was.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"
import * as RequestState from "../src/internal/requestState.js"

const state: RequestState.State = { method: "tools/call", target: "ask", answers: { "input-0": { action: "accept" } } }

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")

/** A token for `claims` sealed with HMAC-SHA256 under `key`, as a peer holding the key could make it. */
const seal = (key: string, claims: ReadonlyArray<unknown> | string) =>
  Effect.promise(async () => {
    const payload = new TextEncoder().encode(typeof claims === "string" ? claims : JSON.stringify(claims))
    const k = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(key),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"]
    )
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, payload))
    return `${base64url(payload)}.${base64url(mac)}`
  })

describe("RequestState signer", () => {
  it.effect("a configured key is the key: two signers with the same secret (text or bytes) read each other's states", () =>
    Effect.gen(function*() {
      const token = yield* RequestState.make("a shared secret").sign(state)
      expect(yield* RequestState.make("a shared secret").verify(token)).toEqual(state)
      expect(yield* RequestState.make(new TextEncoder().encode("a shared secret")).verify(token)).toEqual(state)
      expect(yield* RequestState.make("another secret").verify(token)).toBeUndefined()
      expect(yield* RequestState.make(undefined).verify(token)).toBeUndefined()
    }))

  it.effect("a state made by a peer holding the key is read as sealed: the claims, in order, the issue time last", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_000)
      const token = yield* seal("k", ["prompts/get", "p", { a: 1 }, 1_000])
      expect(yield* RequestState.make("k").verify(token)).toEqual({
        method: "prompts/get",
        target: "p",
        answers: { a: 1 }
      })
    }))

  it.effect("the age counts from the issue time on a clock far from zero", () =>
    Effect.gen(function*() {
      const epoch = 1_750_000_000_000
      yield* TestClock.setTime(epoch)
      const signer = RequestState.make("k", "1 minute")
      const token = yield* signer.sign(state)
      yield* TestClock.setTime(epoch + 60_000)
      expect(yield* signer.verify(token)).toEqual(state)
      yield* TestClock.setTime(epoch + 60_001)
      expect(yield* signer.verify(token)).toBeUndefined()
    }))

  it.effect("a refusal for age is logged with the state's age and the configured maximum", () =>
    Effect.gen(function*() {
      const messages: Array<unknown> = []
      const logger = Logger.make(({ message }) => {
        messages.push(message)
      })
      const signer = RequestState.make("k", "1 second")
      const token = yield* signer.sign(state)
      yield* TestClock.adjust("1500 millis")
      const verified = yield* signer.verify(token).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      expect(verified).toBeUndefined()
      expect(messages.flat().join(" ")).toContain("issued 1500 ms ago (requestStateMaxAge: 1000 ms)")
    }))

  it.effect("a token with a third segment is refused, even when its first two are a valid seal", () =>
    Effect.gen(function*() {
      const signer = RequestState.make("k")
      const token = yield* signer.sign(state)
      expect(yield* signer.verify(token)).toEqual(state)
      expect(yield* signer.verify(`${token}.x`)).toBeUndefined()
      expect(yield* signer.verify(`${token}.`)).toBeUndefined()
      expect(yield* signer.verify(token.split(".")[0]!)).toBeUndefined()
      expect(yield* signer.verify("")).toBeUndefined()
    }))

  it.effect("bad base64 in either segment is refused, not a defect", () =>
    Effect.gen(function*() {
      const signer = RequestState.make("k")
      const [payload, mac] = (yield* signer.sign(state)).split(".")
      expect(yield* signer.verify(`!!!.${mac}`)).toBeUndefined()
      expect(yield* signer.verify(`${payload}.!!!`)).toBeUndefined()
      expect(yield* signer.verify("!!!.!!!")).toBeUndefined()
    }))

  it.effect("a sealed payload that is not JSON, or whose issue time is not a number, is refused", () =>
    Effect.gen(function*() {
      const signer = RequestState.make("k")
      expect(yield* signer.verify(yield* seal("k", "not json"))).toBeUndefined()
      // At time 0, "0" would be 0 ms old if it were subtracted as a number.
      expect(yield* signer.verify(yield* seal("k", ["tools/call", "ask", {}, "0"]))).toBeUndefined()
      expect(yield* signer.verify(yield* seal("k", ["tools/call", "ask", {}, null]))).toBeUndefined()
      expect(yield* signer.verify(yield* seal("k", ["tools/call", "ask", {}, 0]))).toEqual({
        method: "tools/call",
        target: "ask",
        answers: {}
      })
    }))
})
