import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as Deferred from "effect/Deferred"
const N = 5000
const viaStream = Effect.gen(function*() {
  const q = yield* Queue.unbounded()
  const replies = yield* Queue.unbounded()
  yield* Effect.fork(Stream.fromQueue(q).pipe(Stream.runForEach((d) => Deferred.succeed(d, 1))))
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) { const d = yield* Deferred.make(); q.unsafeOffer(d); yield* Deferred.await(d) }
  console.log("stream ping-pong", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
})
const viaTake = Effect.gen(function*() {
  const q = yield* Queue.unbounded()
  yield* Effect.fork(Effect.forever(Effect.flatMap(Queue.take(q), (d) => Deferred.succeed(d, 1))))
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) { const d = yield* Deferred.make(); q.unsafeOffer(d); yield* Deferred.await(d) }
  console.log("take ping-pong", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
})
const runPromiseCost = async () => {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) await Effect.runPromise(Effect.void)
  console.log("runPromise", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
}
await Effect.runPromise(viaStream); await Effect.runPromise(viaStream)
await Effect.runPromise(viaTake); await Effect.runPromise(viaTake)
await runPromiseCost(); await runPromiseCost()
import * as Mailbox from "effect/Mailbox"
const viaMailbox = Effect.gen(function*() {
  const m = yield* Mailbox.make()
  const loop = Effect.flatMap(m.takeAll, ([chunk]) => Effect.forEach(chunk, (d) => Deferred.succeed(d, 1), { discard: true }))
  yield* Effect.fork(Effect.forever(loop))
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) { const d = yield* Deferred.make(); m.unsafeOffer(d); yield* Deferred.await(d) }
  console.log("mailbox ping-pong", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
})
const viaChunk = Effect.gen(function*() {
  const q = yield* Queue.unbounded()
  yield* Effect.fork(Stream.fromQueue(q).pipe(Stream.runForEachChunk((c) => Effect.forEach(c, (d) => Deferred.succeed(d, 1), { discard: true }))))
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) { const d = yield* Deferred.make(); q.unsafeOffer(d); yield* Deferred.await(d) }
  console.log("stream chunk ping-pong", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
})
const direct = Effect.gen(function*() {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) { const d = yield* Deferred.make(); Effect.runFork(Deferred.succeed(d, 1)); yield* Deferred.await(d) }
  console.log("runFork ping-pong", (Number(process.hrtime.bigint() - t0) / 1e3 / N).toFixed(1), "µs")
})
await Effect.runPromise(viaMailbox); await Effect.runPromise(viaMailbox)
await Effect.runPromise(viaChunk); await Effect.runPromise(viaChunk)
await Effect.runPromise(direct); await Effect.runPromise(direct)
