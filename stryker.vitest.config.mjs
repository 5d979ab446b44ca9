// The vitest projects of a mutation run (see stryker.config.mjs): each package's own settings, limited to the test
// files of the group that MUTATION_GROUP names.
import { defineConfig } from "vitest/config"
import { groupName, groups } from "./stryker.config.mjs"
import { shared } from "./vitest.shared.ts"

export default defineConfig({
  test: {
    projects: Object.entries(groups[groupName].tests).map(([pkg, include]) => {
      const base = shared(pkg)
      return { ...base, root: `packages/${pkg}`, test: { ...base.test, include } }
    })
  }
})
