// Bundles what ships as a program: the effect-mcp command and the example servers that its `serve` runs
// (examples/<name>/dist/main.js), into minified files beside each other in packages/cli/dist, from what `tsc -b` built:
// - `effect-mcp.mjs`, its `bin` (src/bundledBin.ts): answers `--version` itself, starts the stdio server given after
//   `--` to a command that connects to it (src/internal/prespawn.ts; no Effect in this file), and runs the command,
// - `effect-mcp.cjs`, the command (src/main.ts) as one CommonJS file, which the bin runs through V8's code cache
//   (`@effect-mcp/node/CodeCache`): a script, unlike an ES module, can start from compiled code on every Node we
//   support; what only some commands need (the OAuth client) is in it too, compiled only when it first runs;
// - `serve-everything.mjs`, `serve-scenarios.mjs` and the chunks they share (`chunk-<hash>.mjs`).
// Node then reads a few files instead of resolving and compiling some 900 modules (docs/benchmarks.md, "Start-up"),
// and the installed command can serve the examples, which are not packages of their own.
// `node packages/cli/scripts/bundle.mjs` (the root `build` script runs it after `tsc -b`; the cli's tests and its
// `prepack` run it first).
import { build } from "esbuild"
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cli = join(dirname(fileURLToPath(import.meta.url)), "..")
const root = join(cli, "..", "..")
const dist = join(cli, "dist")

/** The example servers' output files by their name in dist/ (without `.mjs`), from their built entry modules. */
const servers = {
  "serve-everything": join(root, "examples", "everything", "dist", "main.js"),
  "serve-scenarios": join(root, "examples", "scenarios", "dist", "main.js")
}
const bin = join(dist, "bundledBin.js")
const command = join(dist, "main.js")

for (const [name, entry] of [["effect-mcp", bin], ["effect-mcp", command], ...Object.entries(servers)]) {
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

const common = { bundle: true, minify: true, platform: "node", target: "node20", logLevel: "warning" }

await build({ ...common, entryPoints: [bin], outfile: join(dist, "effect-mcp.mjs"), format: "esm" })
await build({
  ...common,
  entryPoints: [command],
  outfile: join(dist, "effect-mcp.cjs"),
  format: "cjs",
  // `serve` finds the example servers beside the file it runs from.
  define: { "import.meta.url": "__effectMcpModuleUrl" },
  banner: { js: "var __effectMcpModuleUrl = require(\"node:url\").pathToFileURL(__filename).href;" }
})
await build({
  ...common,
  entryPoints: servers,
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  // Chunks sit beside the entries, so that `import.meta.url` names dist/ in whichever file a module lands.
  chunkNames: "chunk-[hash]",
  splitting: true,
  format: "esm",
  // Some dependencies are CommonJS and require Node's modules: an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __effectMcpRequire } from \"node:module\"; const require = __effectMcpRequire(import.meta.url);" }
})
for (const name of ["effect-mcp", ...Object.keys(servers)]) chmodSync(join(dist, `${name}.mjs`), 0o755)
