import * as Effect from "effect/Effect"
const N = 200000
const inner = Effect.suspend(() => Effect.succeed(1))
const variants = {
  plain: inner,
  onExit: Effect.onExit(inner, () => Effect.void),
  onInterrupt: Effect.onInterrupt(inner, () => Effect.void),
  ensuring: Effect.ensuring(inner, Effect.void),
  uninterruptible: Effect.uninterruptible(inner),
  matchCause: Effect.matchCauseEffect(inner, { onSuccess: Effect.succeed, onFailure: Effect.failCause }),
}
const prog = (e) => Effect.gen(function*() { for (let i = 0; i < 20; i++) yield* e })
for (let r = 0; r < 3; r++) for (const [k, e] of Object.entries(variants)) {
  const p = prog(e); const t0 = performance.now(); for (let i = 0; i < N / 20; i++) Effect.runFork(p); const ms = performance.now() - t0
  if (r === 2) console.log(k.padEnd(16), (ms * 1e6 / N).toFixed(0), "ns per use")
}
