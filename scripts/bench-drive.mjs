// How the workloads in scripts/bench/ drive a client, shared so that every row drives it alike.
import * as Effect from "effect/Effect"

/**
 * Makes `calls` calls through `peer` with `concurrency` workers, each making one call after another, the way each
 * library's users write it: an SDK peer (`call(text)`, a Promise) by async functions awaiting it; ours (a peer with
 * `callEffect(text)`) by the fibers of one Effect program. `promise: true` drives ours through `call` instead, an
 * `Effect.runPromise` (a root fiber) per call, as Promise code calling an Effect API does. `onLatency(µs)` hears
 * each call's latency. Resolves when every call is done.
 */
export const drive = (peer, concurrency, calls, { text = "hello", promise = false, onLatency } = {}) => {
  let next = 0
  if (peer.callEffect !== undefined && !promise) {
    const loop = Effect.suspend(() => {
      if (next >= calls) return Effect.void
      next++
      const start = process.hrtime.bigint()
      return Effect.flatMap(peer.callEffect(text), () => {
        onLatency?.(Number(process.hrtime.bigint() - start) / 1e3)
        return loop
      })
    })
    return Effect.runPromise(Effect.forEach(Array.from({ length: concurrency }), () => loop, { concurrency, discard: true }))
  }
  const worker = async () => {
    while (next < calls) {
      next++
      const start = process.hrtime.bigint()
      await peer.call(text)
      onLatency?.(Number(process.hrtime.bigint() - start) / 1e3)
    }
  }
  return Promise.all(Array.from({ length: concurrency }, worker))
}
