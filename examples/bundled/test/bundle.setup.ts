/** Bundles the server before the tests run, so that they run what a user would ship (`dist/server.mjs`). */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/** Vitest's global setup: runs the bundler over the freshly built dist/. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))], {
    stdio: "inherit"
  })
}
