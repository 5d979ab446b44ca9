// Installs the workspace's dependencies with the pinned pnpm (idempotent: a second run is quick).
import { runPnpm } from "./pnpm.mjs"

const frozen = process.env.CI ? ["--frozen-lockfile"] : []
const status = runPnpm(["install", "--reporter=append-only", ...frozen])
if (status !== 0) process.exit(status)
