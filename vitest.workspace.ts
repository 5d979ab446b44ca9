import { defineWorkspace } from "vitest/config"

export default defineWorkspace([
  "packages/*/vitest.config.ts",
  "packages/http/vitest.platform.config.ts",
  "packages/http/vitest.web.config.ts",
  "examples/*/vitest.config.ts",
  "scripts/vitest.config.mjs"
])
