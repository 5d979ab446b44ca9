/**
 * McpClient in a real browser: `browser/page.ts` bundled with esbuild, served by a node:http server on one loopback
 * port, loaded by headless Chromium (Debian's `/usr/bin/chromium`, or `CHROMIUM_PATH`; never downloaded) through
 * puppeteer-core, and connecting over the browser's fetch to the MCP endpoint on another port. With the page's origin
 * in the endpoint's `cors` list it lists the tools and calls one with progress at 2026-07-28 and in a 2025-11-25
 * session (whose `Mcp-Session-Id` it can read only because CORS exposes it); without CORS the browser refuses it.
 * Where no Chromium is installed the suite is skipped and says why (CI installs it: `.ci/run`).
 */
import { McpServer } from "@effect-mcp/core"
import { McpNodeHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { build } from "esbuild"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import puppeteer from "puppeteer-core"
import type { PageResult } from "./browser/page.js"
import { adapter, info, listenOnLoopback, tools } from "./helpers.js"
import { sourcesPlugin } from "./sourcesPlugin.js"

const chromium = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
const haveChromium = existsSync(chromium)
if (!haveChromium && adapter === "node") {
  console.warn(
    `browser.test.ts: skipped, no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`
  )
}

/**
 * The page's script: page.ts and what it imports, bundled for the browser as a user's bundler does it (through each
 * package's `exports` and its `browser` condition), `@effect-mcp/*` taken from the sources (as the tests see them);
 * built once for the file.
 */
const bundle = Effect.runSync(Effect.cached(Effect.promise(() =>
  build({
    entryPoints: [fileURLToPath(new URL("./browser/page.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "error",
    plugins: [sourcesPlugin]
  }).then((result) => result.outputFiles[0]!.text)
)))

/** Serves the page (`/`) and its script (`/page.js`) on 127.0.0.1; its origin. */
const servePage = (script: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.map(
    listenOnLoopback(createServer((request, response) => {
      if (request.url?.startsWith("/page.js")) {
        response.writeHead(200, { "content-type": "text/javascript" }).end(script)
      } else {
        const html = "<!doctype html><meta charset=utf-8><title>MCP</title><script type=module src=/page.js></script>"
        response.writeHead(200, { "content-type": "text/html" }).end(html)
      }
    })),
    (port) => `http://127.0.0.1:${port}`
  )

/** The MCP endpoint on another loopback port; its URL. */
const serveMcp = (options: McpNodeHttpServer.ListenOptions & { readonly cors?: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const served = McpNodeHttpServer.layer(options.cors === undefined ? {} : { cors: { allowedOrigins: options.cors } })
      .pipe(Layer.provide(tools().pipe(Layer.provideMerge(McpServer.layer(info)))))
    return Context.get(yield* Layer.build(served), McpNodeHttpServer.Address).url
  }).pipe(Effect.orDie)

/** Headless Chromium with a fresh profile, closed (and its profile removed) with the scope. */
const launch = Effect.acquireRelease(
  Effect.promise(async () => {
    const profile = mkdtempSync(join(tmpdir(), "effect-mcp-chromium-"))
    const browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      userDataDir: profile,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    return { browser, profile }
  }),
  ({ browser, profile }) =>
    Effect.promise(async () => {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    })
)

/** Loads the page against the endpoint at `mcp` and waits for what it saw. */
const runPage = (origin: string, mcp: string) =>
  Effect.gen(function*() {
    const { browser } = yield* launch
    const tab = yield* Effect.promise(() => browser.newPage())
    yield* Effect.promise(() => tab.goto(`${origin}/?mcp=${encodeURIComponent(mcp)}`))
    const handle = yield* Effect.promise(() =>
      tab.waitForFunction("globalThis.mcpResults", { timeout: 100_000, polling: 100 })
    )
    return (yield* Effect.promise(() => handle.jsonValue())) as ReadonlyArray<PageResult>
  })

describe.skipIf(adapter !== "node" || !haveChromium)("McpClient in headless Chromium", () => {
  it.scopedLive(
    "lists tools and calls one with progress across origins, at 2026-07-28 and in a session",
    () =>
      Effect.gen(function*() {
        const origin = yield* servePage(yield* bundle)
        const mcp = yield* serveMcp({ cors: [origin] })
        const results = yield* runPage(origin, mcp)
        expect(results).toEqual([
          {
            revision: "2026-07-28",
            tools: ["echo", "count", "flood", "slow", "greet", "whoami"],
            progress: [1, 2, 3],
            result: "counted to 3"
          },
          {
            revision: "2025-11-25",
            tools: ["echo", "count", "flood", "slow", "greet", "whoami"],
            progress: [1, 2, 3],
            result: "counted to 3"
          }
        ])
      }),
    150_000
  )

  it.scopedLive(
    "without CORS for the page's origin, the browser refuses the endpoint's answers",
    () =>
      Effect.gen(function*() {
        const origin = yield* servePage(yield* bundle)
        const elsewhere = yield* serveMcp({ cors: ["http://127.0.0.1:1"] })
        const results = yield* runPage(origin, elsewhere)
        expect(results.map((r) => r.result)).toEqual([undefined, undefined])
        for (const r of results) expect(r.error).toBeDefined()
      }),
    150_000
  )
})
