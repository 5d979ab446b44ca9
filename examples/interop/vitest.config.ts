import { mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// One file at a time: each spawns many peer processes, and each file's afterAll re-renders docs/interop.md
// from every file's results, which must not race.
export default mergeConfig(shared("interop"), { test: { fileParallelism: false } })
