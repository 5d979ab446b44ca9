// Bundles what ships as a program: the effect-mcp command, from packages/cli/dist/bin.js (built by `tsc -b`) into one
// minified ES module, packages/cli/dist/effect-mcp.mjs, its `bin`. Node then reads one file instead of resolving and
// compiling some 900 modules: `effect-mcp --version` went from 1.7 s to 0.4-0.5 s (docs/benchmarks.md, "Start-up").
// `node packages/cli/scripts/bundle.mjs` (the root `build` script runs it after `tsc -b`; the cli's tests run it first).
import { build } from "esbuild"
import { chmodSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cli = join(dirname(fileURLToPath(import.meta.url)), "..")
const outfile = join(cli, "dist", "effect-mcp.mjs")

await build({
  entryPoints: [join(cli, "dist", "bin.js")],
  outfile,
  bundle: true,
  minify: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Some dependencies are CommonJS and require Node's modules: an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __effectMcpRequire } from \"node:module\"; const require = __effectMcpRequire(import.meta.url);" },
  logLevel: "warning"
})
chmodSync(outfile, 0o755)
