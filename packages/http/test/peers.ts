/**
 * The two peers every framework test drives an endpoint with: our McpClient (2026-07-28 stateless, and a 2025-11-25
 * session) and the official SDK v2 client (`@modelcontextprotocol/client` 2.4), each listing the tools and calling
 * `count` with progress, then `echo` with a body large enough to be read in several chunks. They fail the test when
 * anything differs from what the helpers' `tools` answer.
 */
import { expect } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { connect } from "./helpers.js"

/** A text that takes several TCP reads (and is past `express.json()`'s default 100 kB, which tests raise). */
export const bigText = "x".repeat(200_000)

/** The text of a tool result's first content. */
const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string | undefined => {
  const first = result.content[0] as { readonly type?: string; readonly text?: string } | undefined
  return first?.type === "text" ? first.text : undefined
}

/** Our client, at one revision (undefined: the newest, 2026-07-28, stateless), against the endpoint at `url`. */
export const ours = (url: string, revision?: "2025-11-25") =>
  Effect.gen(function*() {
    const client = yield* connect(url, revision === undefined ? {} : { revision })
    expect(client.revision).toBe(revision ?? "2026-07-28")
    const listed = yield* client.listTools()
    expect(listed.map((t) => t.name)).toContain("count")
    const events = Chunk.toReadonlyArray(yield* client.callToolStream("count", { to: 3 }).pipe(Stream.runCollect))
    expect(events.flatMap((e) => e._tag === "Progress" ? [e.progress.progress] : [])).toEqual([1, 2, 3])
    const last = events[events.length - 1]!
    expect(last._tag === "Result" ? textOf(last.result) : undefined).toBe("counted to 3")
    const echoed = yield* client.callTool("echo", { text: bigText })
    expect(textOf(echoed)).toBe(bigText)
  })

/** The official SDK v2 client against the endpoint at `url`; it is closed when the scope closes. */
export const theirs = (url: string): Effect.Effect<void, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const client = new Client({ name: "sdk-v2", version: "2.4.0" })
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    const listed = yield* Effect.tryPromise(() => client.listTools())
    expect(listed.tools.map((t) => t.name)).toContain("count")
    const progress: Array<number> = []
    const counted = yield* Effect.tryPromise(() =>
      client.callTool({ name: "count", arguments: { to: 3 } }, { onprogress: (p) => void progress.push(p.progress) })
    )
    expect(progress).toEqual([1, 2, 3])
    expect(textOf(counted as { content: ReadonlyArray<unknown> })).toBe("counted to 3")
    const echoed = yield* Effect.tryPromise(() => client.callTool({ name: "echo", arguments: { text: bigText } }))
    expect(textOf(echoed as { content: ReadonlyArray<unknown> })).toBe(bigText)
  })
