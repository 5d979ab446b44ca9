// Bundles the server as docs/bundling.md shows a user, into two files: dist/server.cjs, the server (its code, ours and
// Effect's) as one CommonJS file, and dist/server.mjs, its launcher, which runs it with V8's code cache
// (`@effect-mcp/node/CodeCache`): Node then reads and compiles one file instead of resolving some 550 modules,
// tree-shaking leaves out what the server never uses, and every start after the first skips compiling.
// `node scripts/bundle.mjs` after `tsc -b` (it bundles the compiled dist/); the example's tests run it first.
// dist/server.meta.json lists what went into the server (esbuild's metafile), which the tests read.
import { build } from "esbuild"
import { writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist")
const common = { bundle: true, minify: true, platform: "node", target: "node20", logLevel: "warning" }

const { metafile } = await build({
  ...common,
  entryPoints: [join(dist, "main.js")],
  outfile: join(dist, "server.cjs"),
  format: "cjs",
  metafile: true
})
await writeFile(join(dist, "server.meta.json"), JSON.stringify(metafile))
await build({ ...common, entryPoints: [join(dist, "launch.js")], outfile: join(dist, "server.mjs"), format: "esm" })
