// Makes the tarballs a user installs with npm: installs the workspace (scripts/setup.mjs), builds it (`tsc -b`), then
// packs every package under packages/ with `pnpm pack` (which turns `workspace:*` into the version, and whose cli
// `prepack` bundles the command) into the folder given as the only argument. `npm run tarballs -- <folder>`; the
// getting-started page (docs/getting-started.md) runs it, and so does scripts/install-test.mjs through that page.
import { mkdirSync, readdirSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { runPnpm } from "./pnpm.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The packages that ship, in the order of the package table. */
export const packages = ["schema", "core", "http", "auth", "node", "host", "ai", "redis", "cli"]

/** Builds the workspace and packs every package into `destination`: the tarballs' paths, or the step that failed. */
export const makeTarballs = (destination) => {
  mkdirSync(destination, { recursive: true })
  const steps = [
    ["install", "--reporter=append-only", ...(process.env.CI ? ["--frozen-lockfile"] : [])],
    ["exec", "tsc", "-b"],
    ...packages.map((p) => ["--filter", `@effect-mcp/${p}`, "pack", "--pack-destination", destination])
  ]
  for (const args of steps) {
    const status = runPnpm(args)
    if (status !== 0) return { status, failed: `pnpm ${args.join(" ")}` }
  }
  const files = readdirSync(destination).filter((f) => f.endsWith(".tgz"))
  const tarballOf = (p) => join(destination, files.find((f) => f.startsWith(`effect-mcp-${p}-`)))
  return { status: 0, tarballs: packages.map(tarballOf) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [destination] = process.argv.slice(2)
  if (destination === undefined || destination === "") {
    process.stderr.write("usage: npm run tarballs -- <folder>\n")
    process.exit(2)
  }
  const made = makeTarballs(resolve(destination))
  if (made.status !== 0) {
    process.stderr.write(`tarballs: ${made.failed} failed\n`)
    process.exit(made.status)
  }
  for (const tarball of made.tarballs) process.stdout.write(`${tarball}\n`)
}
