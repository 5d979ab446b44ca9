import { mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(shared("everything"), { test: { globalSetup: ["./test/worker.setup.ts"] } })
