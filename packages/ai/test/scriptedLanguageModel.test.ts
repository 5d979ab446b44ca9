/**
 * ScriptedLanguageModel: one turn per model call, tool calls resolved by @effect/ai as for a real provider (also when
 * streaming), and an AiError for a call past the script's end.
 */
import { ScriptedLanguageModel } from "@effect-mcp/ai"
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const Double = AiTool.make("double", { parameters: { n: Schema.Number }, success: Schema.Number })
const Kit = Toolkit.make(Double)
const withHandler = Effect.provide(Kit, Kit.toLayer({ double: ({ n }) => Effect.succeed(n * 2) }))

const turns: ReadonlyArray<ScriptedLanguageModel.Turn> = [
  ({ tools }) =>
    Effect.succeed([
      ScriptedLanguageModel.text(`I have ${tools.map((t) => t.name).join(", ")}`),
      ScriptedLanguageModel.toolCall("c1", "double", { n: 21 }),
      ScriptedLanguageModel.finish("tool-calls")
    ])
]

describe("ScriptedLanguageModel", () => {
  it.effect("plays a turn per call, offering the toolkit's tools and resolving its tool calls", () =>
    Effect.gen(function*() {
      const model = yield* ScriptedLanguageModel.make(turns)
      const response = yield* model.generateText({ prompt: "go", toolkit: withHandler })
      expect(response.text).toBe("I have double")
      expect(response.toolResults.map((r) => r.result)).toEqual([42])
      expect(response.finishReason).toBe("tool-calls")
      const error = yield* Effect.flip(model.generateText({ prompt: "again" }))
      expect(error).toBeInstanceOf(AiError.UnknownError)
      expect(error.message).toMatch(/the script has 1 turns, and model call 2 was made/)
    }))

  it.effect("streams a turn as text deltas and tool calls, and resolves the calls", () =>
    Effect.gen(function*() {
      const parts = yield* LanguageModel.streamText({ prompt: "go", toolkit: withHandler }).pipe(
        Stream.runCollect,
        Effect.map(Chunk.toReadonlyArray),
        Effect.provide(ScriptedLanguageModel.layer(turns))
      )
      expect(parts.map((p) => p.type)).toEqual([
        "text-start",
        "text-delta",
        "text-end",
        "tool-call",
        "finish",
        "tool-result"
      ])
      expect(parts.flatMap((p) => (p.type === "tool-result" ? [p.result] : []))).toEqual([42])
    }))
})
