/**
 * An esbuild plugin for tests that bundle our packages: `@effect-mcp/<package>[/<module>]` is resolved as a user's
 * bundler resolves it, through that package's `exports` and the build's conditions (`browser`, `worker`, …), and then
 * taken from the sources (`dist/X.js` → `src/X.ts`), as the tests see them, so that no build is needed.
 */
import type { Plugin } from "esbuild"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../../", import.meta.url))

/** An `exports` entry: a path, conditions to entries, or null (not exported). */
type Target = string | null | { readonly [condition: string]: Target }

/** The path an `exports` entry gives under these conditions (in the entry's own key order, as Node and bundlers do). */
const pick = (target: Target, conditions: ReadonlySet<string>): string | undefined => {
  if (target === null) return undefined
  if (typeof target === "string") return target
  for (const [condition, next] of Object.entries(target)) {
    if (!conditions.has(condition)) continue
    const found = pick(next, conditions)
    if (found !== undefined) return found
  }
  return undefined
}

/** The source file that `@effect-mcp/<name>` + `subpath` ("." or "./Module") resolves to under these conditions. */
export const resolveSource = (name: string, subpath: string, conditions: ReadonlySet<string>): string | undefined => {
  const manifest = JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8")) as {
    readonly exports: Record<string, Target>
  }
  const exact = manifest.exports[subpath]
  const star = subpath.startsWith("./") ? manifest.exports["./*"] : undefined
  const target = exact !== undefined
    ? pick(exact, conditions)
    : pick(star ?? null, conditions)?.replace("*", subpath.slice(2))
  if (target === undefined) return undefined
  return join(packages, name, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"))
}

/** The conditions esbuild applies for a build: its platform's, the build's own, `import`, `module` and `default`. */
const conditionsOf = (options: { readonly platform?: string; readonly conditions?: ReadonlyArray<string> }) =>
  new Set([
    ...(options.platform === "browser" ? ["browser"] : options.platform === "node" ? ["node"] : []),
    ...(options.conditions ?? []),
    "import",
    "module",
    "default"
  ])

/** Resolves `@effect-mcp/*` through each package's `exports` to its sources. */
export const sourcesPlugin: Plugin = {
  name: "effect-mcp-sources",
  setup: (build) => {
    const conditions = conditionsOf(build.initialOptions)
    build.onResolve({ filter: /^@effect-mcp\/[a-z]+(\/[A-Za-z.]+)?$/ }, ({ path }) => {
      const [, name, module] = path.split("/")
      const source = resolveSource(name!, module === undefined ? "." : `./${module}`, conditions)
      return source === undefined
        ? { errors: [{ text: `${path} is not exported under the conditions ${[...conditions].join(", ")}` }] }
        : { path: source }
    })
  }
}
