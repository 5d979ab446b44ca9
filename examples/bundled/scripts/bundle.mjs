// Bundles the server into one ES module, dist/server.mjs, as docs/bundling.md shows a user: Node then reads and
// compiles one file instead of resolving some 550 modules, and tree-shaking leaves out what the server never uses.
// `node scripts/bundle.mjs` after `tsc -b` (it bundles the compiled dist/main.js); the example's tests run it first.
// dist/server.meta.json lists what went in (esbuild's metafile), which the tests read.
import { build } from "esbuild"
import { writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist")

const { metafile } = await build({
  entryPoints: [join(dist, "main.js")],
  outfile: join(dist, "server.mjs"),
  bundle: true,
  minify: true,
  platform: "node",
  format: "esm",
  target: "node20",
  metafile: true,
  logLevel: "warning"
})
await writeFile(join(dist, "server.meta.json"), JSON.stringify(metafile))
