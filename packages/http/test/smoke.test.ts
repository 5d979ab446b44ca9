import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { initialize, messages, openSession, post, serve } from "./helpers.js"

describe("smoke", () => {
  it.scopedLive("initialize and list tools over raw HTTP", () =>
    Effect.gen(function*() {
      const { url } = yield* serve()
      const res = yield* post(url, initialize("2025-06-18"))
      expect(res.status).toBe(200)
      const [init] = yield* messages(res)
      expect(init.result.protocolVersion).toBe("2025-06-18")
      const { headers } = yield* openSession(url)
      const list = yield* post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers)
      const [tools] = yield* messages(list)
      expect(tools.result.tools.map((t: any) => t.name)).toContain("echo")
    }))
})
