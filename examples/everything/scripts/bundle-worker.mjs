// Bundles the everything server as a worker: dist/fetchWorker.js (built by `tsc -b`) into one ES module,
// dist/worker.js, whose default export is `{ fetch(request) }`, for workerd, `Bun.serve` and `Deno.serve`. It is
// bundled for a browser-like platform, so that any node:* import fails the build instead of the worker.
// `node examples/everything/scripts/bundle-worker.mjs` (the root `build` script runs it after `tsc -b`; the
// everything example's tests run it first).
import { build } from "esbuild"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const everything = join(dirname(fileURLToPath(import.meta.url)), "..")

await build({
  entryPoints: [join(everything, "dist", "fetchWorker.js")],
  outfile: join(everything, "dist", "worker.js"),
  bundle: true,
  minify: true,
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  format: "esm",
  target: "es2022",
  logLevel: "warning"
})
