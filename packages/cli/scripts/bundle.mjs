// Bundles what ships as a program: the effect-mcp command, from packages/cli/dist/bin.js (built by `tsc -b`), into
// minified ES modules: packages/cli/dist/effect-mcp.mjs, its `bin`, and the chunks it loads (dist/chunks/). Node then
// reads a few files instead of resolving and compiling some 900 modules: `effect-mcp --version` went from 1.7 s to
// 0.4-0.5 s (docs/benchmarks.md, "Start-up"). The entry answers `--version` itself and loads the command's chunk for
// everything else, so that `--version` compiles none of it; what
// only some commands need (the OAuth client, loaded when a server asks for a login) is a chunk of its own.
// `node packages/cli/scripts/bundle.mjs` (the root `build` script runs it after `tsc -b`; the cli's tests run it first).
import { build } from "esbuild"
import { chmodSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cli = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(cli, "dist")

rmSync(join(dist, "chunks"), { recursive: true, force: true })
await build({
  entryPoints: { "effect-mcp": join(dist, "bin.js") },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
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
chmodSync(join(dist, "effect-mcp.mjs"), 0o755)
