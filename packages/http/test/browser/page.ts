/**
 * The page the browser test loads (bundled with esbuild, run by headless Chromium): McpClient over McpHttpClient on
 * the browser's own fetch (`FetchHttpClient`), against the endpoint named by `?mcp=<url>` on another origin. For each
 * revision it connects, lists the tools and calls `count` with progress, then leaves what it saw (or how it failed) in
 * `globalThis.mcpResults` for the test to read.
 */
import { McpClient } from "@effect-mcp/core"
// The package root: a browser bundle gets its `browser` entry, without the node:http adapters.
import { McpHttpClient } from "@effect-mcp/http"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/** What one connection saw. */
export interface PageResult {
  readonly revision: string | undefined
  readonly tools: ReadonlyArray<string>
  readonly progress: ReadonlyArray<number>
  readonly result: string | undefined
  readonly error: string | undefined
}

/** The little of the browser's globals this page touches (the project's tsconfig has no DOM library). */
interface PageGlobals {
  readonly location: { readonly search: string }
  mcpResults?: ReadonlyArray<PageResult>
}

const page = globalThis as unknown as PageGlobals
const url = new URLSearchParams(page.location.search).get("mcp") ?? ""

/** One connection at `revision` (undefined: the newest, 2026-07-28): list, then call `count` with progress. */
const session = (revision: "2025-11-25" | undefined) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools()
    const events = Chunk.toReadonlyArray(yield* client.callToolStream("count", { to: 3 }).pipe(Stream.runCollect))
    const last = events[events.length - 1]
    const first = last?._tag === "Result" ? last.result.content[0] : undefined
    return {
      revision: client.revision,
      tools: tools.map((t) => t.name),
      progress: events.flatMap((e) => e._tag === "Progress" ? [e.progress.progress] : []),
      result: first?.type === "text" ? first.text : undefined,
      error: undefined
    }
  }).pipe(
    Effect.provide(
      McpClient.layer({ name: "browser-page", version: "1.0.0", ...(revision === undefined ? {} : { revision }) }).pipe(
        Layer.provide(McpHttpClient.layer({ url }).pipe(Layer.provide(FetchHttpClient.layer)))
      )
    ),
    Effect.timeout("45 seconds"),
    Effect.exit,
    Effect.map((exit): PageResult =>
      Exit.isSuccess(exit)
        ? exit.value
        : { revision, tools: [], progress: [], result: undefined, error: Cause.pretty(exit.cause).split("\n")[0] }
    )
  )

void Effect.runPromise(Effect.all([session(undefined), session("2025-11-25")], { concurrency: 2 })).then((results) => {
  page.mcpResults = results
})
