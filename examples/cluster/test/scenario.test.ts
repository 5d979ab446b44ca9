// The cluster example's scenario runs to its end, and tells what a person watching it should see.
import { expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Scenario from "../src/Scenario.js"

it.scopedLive(
  "the scenario runs: every process answers, changes reach every listener, the clients outlive a SIGKILL",
  () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      yield* Scenario.run((line) => Effect.sync(() => void lines.push(line)))
      const answeredBy = (prefix: string) =>
        lines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length))
      expect(new Set(answeredBy("cluster_whoami answered by ").slice(0, 3)).size).toBe(3)
      for (const n of [1, 2, 3]) {
        expect(lines).toContain(`listener ${n}: notifications/resources/updated`)
        expect(lines).toContain(`listener ${n}: notifications/tools/list_changed`)
      }
      expect(lines.find((l) => l.startsWith("input_required round trip"))).toContain("ada")
      expect(lines.find((l) => l.startsWith("task result: "))).toMatch(/done by pid \d+/)
      expect(new Set(answeredBy("2025-11-25 session call answered by ").slice(0, 3)).size).toBe(1)
      const legacy = answeredBy("2024-11-05 HTTP+SSE call answered by ")
      expect(legacy.length).toBe(3)
      expect(new Set(legacy).size).toBe(1)
      const killed = lines.find((l) => l.startsWith("SIGKILL pid "))!.slice("SIGKILL ".length)
      expect(answeredBy("cluster_whoami answered by ").slice(3)).not.toContain(killed)
      expect(lines.at(-1)).toBe("done")
    }),
  { timeout: 120_000 }
)
