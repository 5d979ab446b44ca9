/**
 * What a browser or a worker gets from our packages. `@effect-mcp/http`, `@effect-mcp/core` and `@effect-mcp/schema`,
 * by their package roots, are bundled with esbuild as a bundler for each platform resolves them (the `browser`,
 * `worker` and `workerd` export conditions; the sources stand in for `dist/`): each bundle builds with no `node:*`
 * import, and holds the fetch-based client and the web handler but no node:http adapter. Then every module of ours
 * those bundles reach is typechecked (TypeScript 7) with the DOM library and no Node types, so that a Node-only global
 * (`Buffer`, `process`, `setImmediate`, …) on their path fails here and not in a user's browser.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { build, type BuildOptions, type Metafile } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { adapter } from "./helpers.js"
import { sourcesPlugin } from "./sourcesPlugin.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const ours = ["schema", "core", "http"] as const

/** A user's entry module: every export of each of our package roots. */
const entry = ours.map((p) => `export * as ${p} from "@effect-mcp/${p}"`).join("\n")

/** Bundles the entry for a platform and conditions; the metafile (its inputs and the bundle's imports). */
const bundle = (options: Pick<BuildOptions, "platform" | "conditions">) =>
  Effect.promise(() =>
    build({
      ...options,
      stdin: { contents: entry, resolveDir: root, loader: "ts" },
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      target: "es2022",
      logLevel: "silent",
      plugins: [sourcesPlugin]
    }).then((result) => result.metafile)
  )

/** Our source files among a bundle's inputs, relative to the repository. */
const ourSources = (metafile: Metafile) =>
  Object.keys(metafile.inputs)
    .map((input) => relative(root, join(root, input)))
    .filter((input) => /^packages\/[a-z]+\/src\//.test(input))

/** The imports a bundle leaves to the runtime: none, for a browser. */
const externalImports = (metafile: Metafile) =>
  Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))

/** How a user's bundler resolves our packages for each kind of runtime (wrangler: workerd, worker, browser). */
const targets: ReadonlyArray<readonly [string, Pick<BuildOptions, "platform" | "conditions">]> = [
  ["a browser (esbuild --platform=browser)", { platform: "browser" }],
  ["a worker (the worker condition)", { platform: "neutral", conditions: ["worker"] }],
  ["Cloudflare Workers (the workerd condition)", { platform: "neutral", conditions: ["workerd"] }],
  ["wrangler (workerd, worker, browser)", { platform: "browser", conditions: ["workerd", "worker", "browser"] }]
]

/**
 * Typechecks these sources with TypeScript 7 as a browser sees the world (`lib` ES2022 and DOM, no `@types/node`),
 * `@effect-mcp/*` taken from the sources too; its diagnostics, one a line.
 */
const typecheckForTheWeb = (files: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-web-check-"))
  try {
    const paths = Object.fromEntries(ours.flatMap((p) => [
      [`@effect-mcp/${p}`, [join(root, "packages", p, "src", "index.ts")]],
      [`@effect-mcp/${p}/*`, [join(root, "packages", p, "src", "*.ts")]]
    ]))
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: [],
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true,
          noEmit: true,
          paths
        },
        files: files.map((f) => join(root, f))
      })
    )
    const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc")
    const run = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { encoding: "utf8" })
    return `${run.stdout}${run.stderr}`.split("\n").filter((line) => line.includes("error TS"))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe.skipIf(adapter !== "node")("the packages in a browser or a worker", () => {
  for (const [runtime, options] of targets) {
    it.live(
      `bundle for ${runtime}: no node:* import, the fetch client and web handler, no node:http adapter`,
      () =>
        Effect.gen(function*() {
          const metafile = yield* bundle(options)
          const sources = ourSources(metafile)
          expect(externalImports(metafile)).toEqual([])
          expect(Object.keys(metafile.inputs).filter((input) => input.startsWith("node:"))).toEqual([])
          expect(sources).toContain("packages/http/src/index.web.ts")
          expect(sources).toContain("packages/http/src/McpHttpClient.ts")
          expect(sources).toContain("packages/http/src/McpWebHandler.ts")
          expect(sources).not.toContain("packages/http/src/index.ts")
          expect(sources.filter((s) => /McpNodeHttp/.test(s))).toEqual([])
        }),
      120_000
    )
  }

  it.live("Node's own bundle of the root keeps the node:http adapters", () =>
    Effect.gen(function*() {
      const metafile = yield* bundle({ platform: "node" })
      const sources = ourSources(metafile)
      expect(sources).toContain("packages/http/src/McpNodeHttpServer.ts")
      expect(sources).toContain("packages/http/src/McpNodeHttpClient.ts")
      expect(externalImports(metafile)).toContain("node:http")
    }), 120_000)

  it.live(
    "every module of ours a browser bundle reaches typechecks with the DOM library and no Node types",
    () =>
      Effect.gen(function*() {
        const sources = ourSources(yield* bundle({ platform: "browser" }))
        expect(sources.length).toBeGreaterThan(100)
        expect(typecheckForTheWeb(sources)).toEqual([])
      }),
    300_000
  )
})
