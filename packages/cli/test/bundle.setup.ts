/** Bundles the command before the cli's tests run, so that they run what ships (`dist/effect-mcp.mjs`), never a stale one. */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/** Vitest's global setup: runs the bundler over the freshly built dist/. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))], {
    stdio: "inherit"
  })
}
