import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { Writable } from "node:stream"
import * as Writer from "../src/internal/writer.js"

/** A Writable that holds every write until `release` is called. */
const heldWritable = () => {
  const held: Array<() => void> = []
  const lines: Array<string> = []
  const output = new Writable({
    highWaterMark: 1,
    write(chunk, _encoding, callback) {
      lines.push(String(chunk))
      held.push(callback)
    }
  })
  const release = () => {
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
      while (sends.some((f) => f.unsafePoll() === null)) {
        yield* Effect.sync(release)
        yield* Effect.sleep("1 millis")
      }
      for (const send of sends) yield* Fiber.join(send)
      expect(lines.join("").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).params.i)).toEqual(
        Array.from({ length: 50 }, (_, i) => i)
      )
      expect(output.listenerCount("drain")).toBe(0)
    }))

  it.live("lines written in one tick go out together, at most 16 to a system call, in order", () =>
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
      yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (id) => writer.send({ jsonrpc: "2.0", id, result: {} }),
        { discard: true }
      )
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(batches.map((batch) => batch.length)).toEqual([16, 16, 8])
      expect(batches.flat()).toEqual(Array.from({ length: 40 }, (_, i) => i))
    }))
})
