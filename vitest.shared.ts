import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const packages = ["schema", "core", "http", "auth", "node", "host", "ai", "redis", "cli"]

/** Vitest settings every package shares: sources resolved from src/, so tests never see a stale dist/. */
export const shared = (name: string) =>
  defineConfig({
    resolve: {
      alias: Object.fromEntries(
        packages.map((
          p
        ) => [`@effect-mcp/${p}`, fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url))])
      )
    },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))],
      testTimeout: 60_000,
      hookTimeout: 60_000
    }
  })
