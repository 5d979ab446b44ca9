// Bundles what ships as a program: the effect-mcp command (packages/cli/dist/bin.js, built by `tsc -b`) and the
// example servers that its `serve` runs (examples/<name>/dist/main.js), into minified ES modules beside each other in
// packages/cli/dist: `effect-mcp.mjs` (its `bin`), `serve-everything.mjs`, `serve-scenarios.mjs`, and the chunks they
// share (`chunk-<hash>.mjs`, Effect and our packages once). Node then reads a few files instead of resolving and
// compiling some 900 modules (docs/benchmarks.md, "Start-up"), and the installed command can serve the examples, which
// are not packages of their own. The command's entry answers `--version` itself and imports the rest lazily, so that
// `--version` compiles none of it; what only some commands need (the OAuth client, loaded when a server asks for a
// login) is a chunk of its own.
// `node packages/cli/scripts/bundle.mjs` (the root `build` script runs it after `tsc -b`; the cli's tests and its
// `prepack` run it first).
import { build } from "esbuild"
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cli = join(dirname(fileURLToPath(import.meta.url)), "..")
const root = join(cli, "..", "..")
const dist = join(cli, "dist")

/** Every output file by its name in dist/ (without `.mjs`), from its built entry module. */
const entryPoints = {
  "effect-mcp": join(dist, "bin.js"),
  "serve-everything": join(root, "examples", "everything", "dist", "main.js"),
  "serve-scenarios": join(root, "examples", "scenarios", "dist", "main.js")
}

for (const [name, entry] of Object.entries(entryPoints)) {
  if (!existsSync(entry)) {
    process.stderr.write(`bundle: ${entry} (for ${name}.mjs) is not built: run \`tsc -b\` at the root first\n`)
    process.exit(1)
  }
}

// Chunks of an earlier bundle would otherwise stay behind (and ship) under names nothing imports.
for (const file of readdirSync(dist)) {
  if (file.startsWith("chunk-") && file.endsWith(".mjs")) rmSync(join(dist, file))
}
rmSync(join(dist, "chunks"), { recursive: true, force: true })

await build({
  entryPoints,
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  // Chunks sit beside the entries, so that `import.meta.url` names dist/ in whichever file a module lands.
  chunkNames: "chunk-[hash]",
  splitting: true,
  bundle: true,
  minify: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Some dependencies are CommonJS and require Node's modules: an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __effectMcpRequire } from \"node:module\"; const require = __effectMcpRequire(import.meta.url);" },
  logLevel: "warning"
})
for (const name of Object.keys(entryPoints)) chmodSync(join(dist, `${name}.mjs`), 0o755)
