import { defineConfig } from "vitest/config"

/** The repository scripts' own tests (the lint's rules), apart from every package. */
export default defineConfig({
  test: {
    name: "scripts",
    include: ["test/**/*.test.mjs"]
  }
})
