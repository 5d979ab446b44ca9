/**
 * ScriptedLanguageModel: an `@effect/ai` `LanguageModel` that answers from a script instead of a model service, for
 * tests and examples that must not reach one. Each model call takes the script's next turn, which sees the prompt so
 * far (with the tool results of earlier turns) and the tools offered, and answers with response parts: text, tool
 * calls, a finish. `@effect/ai` resolves the tool calls as it does for any provider: the toolkit's handlers run.
 * A call past the script's end fails with an `AiError`.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import type * as AiTool from "@effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"

/** What a turn of the script is given. */
export interface TurnInput {
  /** The prompt of this model call: the whole conversation so far. */
  readonly prompt: Prompt.Prompt
  /** The tools offered to the model in this call. */
  readonly tools: ReadonlyArray<AiTool.Any>
  /** Which model call this is, from 0. */
  readonly turn: number
}

/** One turn of a script: the model's answer to one call. */
export type Turn = (input: TurnInput) => Effect.Effect<ReadonlyArray<Response.PartEncoded>, AiError.AiError>

/** A text part of an answer. */
export const text = (value: string): Response.TextPartEncoded => ({ type: "text", text: value })

/** A tool call of an answer (`id` tells the calls of one conversation apart). */
export const toolCall = (id: string, name: string, params: unknown): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})

/** The finish part of an answer (no token counts: nothing was counted). */
export const finish = (reason: Response.FinishReason): Response.FinishPartEncoded => ({
  type: "finish",
  reason,
  usage: {
    inputTokens: undefined,
    outputTokens: undefined,
    totalTokens: undefined,
    reasoningTokens: undefined,
    cachedInputTokens: undefined
  }
})

/** Every tool result in a prompt, oldest first. */
export const toolResults = (prompt: Prompt.Prompt): ReadonlyArray<Prompt.ToolResultPart> =>
  prompt.content.flatMap((message) =>
    message.role === "tool" ? message.content : message.role === "assistant"
      ? message.content.filter((part): part is Prompt.ToolResultPart => part.type === "tool-result")
      : []
  )

/** The parts of an answer as a stream sends them (a text as its start, one delta and its end). */
const streamed = (parts: ReadonlyArray<Response.PartEncoded>): ReadonlyArray<Response.StreamPartEncoded> =>
  parts.flatMap((part, i): ReadonlyArray<Response.StreamPartEncoded> => {
    switch (part.type) {
      case "text":
        return [
          { type: "text-start", id: `text-${i}` },
          { type: "text-delta", id: `text-${i}`, delta: part.text },
          { type: "text-end", id: `text-${i}` }
        ]
      case "tool-call":
      case "tool-result":
      case "finish":
      case "file":
      case "source":
      case "response-metadata":
        return [part]
      default:
        return []
    }
  })

/** A LanguageModel service that answers each call with the script's next turn. */
export const make = (turns: ReadonlyArray<Turn>): Effect.Effect<LanguageModel.Service> =>
  Effect.gen(function*() {
    const next = yield* Ref.make(0)
    const answer = (options: LanguageModel.ProviderOptions) =>
      Effect.flatMap(Ref.getAndUpdate(next, (n) => n + 1), (turn) => {
        const play = turns[turn]
        return play === undefined
          ? Effect.fail(
            new AiError.UnknownError({
              module: "ScriptedLanguageModel",
              method: "generateText",
              description: `the script has ${turns.length} turns, and model call ${turn + 1} was made`
            })
          )
          : Effect.map(play({ prompt: options.prompt, tools: options.tools, turn }), (parts) => [...parts])
      })
    return yield* LanguageModel.make({
      generateText: answer,
      streamText: (options) =>
        Stream.flatMap(Stream.fromEffect(answer(options)), (parts) => Stream.fromIterable(streamed(parts)))
    })
  })

/** A LanguageModel that plays `turns`, one per model call, as a Layer. */
export const layer = (turns: ReadonlyArray<Turn>): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(turns))
