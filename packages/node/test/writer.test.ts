import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { Writable } from "node:stream"
import * as Writer from "../src/internal/writer.js"

/** A Writable that holds every write until `release` is called; from then on it takes every write at once. */
const heldWritable = () => {
  const held: Array<() => void> = []
  const lines: Array<string> = []
  let open = false
  const output = new Writable({
    highWaterMark: 1,
    write(chunk, _encoding, callback) {
      lines.push(String(chunk))
      if (open) callback()
      else held.push(callback)
    }
  })
  const release = () => {
    open = true
    for (const callback of held.splice(0)) callback()
  }
  return { output, lines, release, held }
}

describe("stdio line writer", () => {
  it.live("sends that find the buffer full all wait for one drain, with one set of listeners", () =>
    Effect.gen(function*() {
      const { lines, output, release } = heldWritable()
      const writer = Writer.make(output, "test")
      const sends = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => Effect.fork(writer.send({ jsonrpc: "2.0", method: "notifications/message", params: { i } })),
        { concurrency: "unbounded" }
      )
      yield* Effect.yieldNow()
      expect(output.listenerCount("drain")).toBe(1)
      expect(output.listenerCount("close")).toBe(1)
      yield* Effect.sync(release)
      for (const send of sends) yield* Fiber.join(send)
      expect(lines.join("").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).params.i)).toEqual(
        Array.from({ length: 50 }, (_, i) => i)
      )
      expect(output.listenerCount("drain")).toBe(0)
    }))

  it.live("a line alone in its tick goes out at once; a tick's burst goes out in batches of at most 16, in order", () =>
    Effect.gen(function*() {
      const batches: Array<Array<number>> = []
      const ids = (chunk: unknown) => String(chunk).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).id)
      const output = new Writable({
        write(chunk, _encoding, callback) {
          batches.push(ids(chunk))
          callback()
        },
        writev(chunks, callback) {
          batches.push(chunks.flatMap(({ chunk }) => ids(chunk)))
          callback()
        }
      })
      const writer = Writer.make(output, "test")
      const send = (id: number) => writer.send({ jsonrpc: "2.0", id, result: {} })
      const burst = (from: number) =>
        Effect.forEach(Array.from({ length: 40 }, (_, i) => from + i), send, { discard: true })
      const afterTheTick = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      const written = () => batches.splice(0)

      // One line in a quiet writer's tick: written in the send itself.
      yield* send(0)
      expect(written()).toEqual([[0]])
      yield* afterTheTick
      // A burst after a one-line tick: its first line at once, the rest held to the tick's end, 16 to a write.
      yield* burst(100)
      expect(written().map((batch) => batch.length)).toEqual([1, 16, 16])
      yield* afterTheTick
      expect(written()).toEqual([Array.from({ length: 7 }, (_, i) => 133 + i)])
      // A burst after a busy tick: all of it batched.
      yield* burst(200)
      yield* afterTheTick
      const second = written()
      expect(second.map((batch) => batch.length)).toEqual([16, 16, 8])
      expect(second.flat()).toEqual(Array.from({ length: 40 }, (_, i) => 200 + i))
      // A lone line after a busy tick waits for its tick's end; the next lone line goes at once.
      yield* send(300)
      expect(written()).toEqual([])
      yield* afterTheTick
      expect(written()).toEqual([[300]])
      yield* send(301)
      expect(written()).toEqual([[301]])
    }))
})
