import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const packages = ["schema", "core", "http", "auth", "node", "host", "ai", "redis", "cli"]

/** Vitest settings every package shares: sources resolved from src/, so tests never see a stale dist/. */
export const shared = (name: string) =>
  defineConfig({
    resolve: {
      alias: [
        // A public module by its own path (`@effect-mcp/node/CodeCache`): its source too.
        {
          find: new RegExp(`^@effect-mcp/(${packages.join("|")})/([A-Za-z]\\w*)$`),
          replacement: `${fileURLToPath(new URL("./packages/", import.meta.url))}$1/src/$2.ts`
        },
        ...packages.map((p) => ({
          find: new RegExp(`^@effect-mcp/${p}$`),
          replacement: fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url))
        }))
      ]
    },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))],
      testTimeout: 60_000,
      hookTimeout: 60_000
    }
  })
