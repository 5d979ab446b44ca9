import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/** Vitest's global setup: bundles dist/worker.js from the freshly built dist/ (the runtime tests serve it). */
export default function setup() {
  execFileSync(process.execPath, [fileURLToPath(new URL("../scripts/bundle-worker.mjs", import.meta.url))], {
    stdio: "inherit"
  })
}
