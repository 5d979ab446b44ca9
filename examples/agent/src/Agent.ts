/**
 * The agent's loop: the question goes to the language model with the host's tools (an `McpToolkit` made afresh
 * each step, so it follows the servers' `list_changed`); the model's tool calls are made through the host (their
 * progress reported as they run), their results go back to the model with the conversation, and so on until the
 * model answers without calling a tool, or `maxSteps` model calls have been made. Each step is reported.
 */
import { McpToolkit } from "@effect-mcp/ai"
import { McpHost } from "@effect-mcp/host"
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** What the agent does, step by step. */
export type Step = Data.TaggedEnum<{
  /** The model asked for a tool call. */
  ToolCall: { readonly step: number; readonly tool: string; readonly params: unknown }
  /** A running tool call reported progress. */
  Progress: { readonly tool: string; readonly progress: number; readonly total: number | undefined }
  /** A tool call ended: its outcome as the model reads it. */
  ToolResult: { readonly step: number; readonly tool: string; readonly failed: boolean; readonly summary: string }
  /** The model answered. */
  Answer: { readonly step: number; readonly text: string }
}>

/** Constructors of steps. */
export const Step = Data.taggedEnum<Step>()

/** The model kept calling tools for `steps` model calls without answering. */
export class AgentGaveUp extends Data.TaggedError("AgentGaveUp")<{ readonly steps: number }> {
  override get message(): string {
    return `no answer after ${this.steps} model calls`
  }
}

/** How the agent works. */
export interface Options {
  /** At most this many model calls (default 8). */
  readonly maxSteps?: number
  /** What the model is told first. */
  readonly system?: string
  /** Called with each step as it happens. */
  readonly onStep?: (step: Step) => Effect.Effect<void>
}

/** What the model is told first, unless told otherwise. */
export const defaultSystem =
  "You answer questions by calling the tools you are given. Call a tool whenever it can tell you something you need; " +
  "when you know the answer, give it in one sentence."

const readOutput = Schema.decodeUnknownOption(McpToolkit.ToolOutput)
const readFailure = Schema.decodeUnknownOption(McpToolkit.ToolCallFailed)

const readMessage = Schema.decodeUnknownOption(Schema.Struct({ message: Schema.String }))

/** What a failed tool call says: its typed failure's `message` when it has one, else the failure's text. */
export const failureText = (failure: McpToolkit.ToolCallFailed): string => {
  const typed = readMessage(failure.failure)
  return typed._tag === "Some" ? typed.value.message : failure.message
}

/** A tool result as one line: what the failure says, the structured content, or the text. */
const summarize = (result: unknown): string => {
  const failure = readFailure(result)
  if (failure._tag === "Some") return failureText(failure.value)
  const output = readOutput(result)
  if (output._tag === "None") return JSON.stringify(result)
  if (output.value.structuredContent !== undefined) return JSON.stringify(output.value.structuredContent)
  return output.value.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")
}

/** A step as one line of text. */
export const describe: (step: Step) => string = Step.$match({
  ToolCall: ({ params, step, tool }) => `step ${step}: the model calls ${tool} ${JSON.stringify(params)}`,
  Progress: ({ progress, tool, total }) =>
    `        ${tool} reports progress ${progress}${total === undefined ? "" : `/${total}`}`,
  ToolResult: ({ failed, step, summary, tool }) => `step ${step}: ${tool} ${failed ? "failed" : "returned"} ${summary}`,
  Answer: ({ step, text }) => `step ${step}: the model answers: ${text}`
})

/** Answers `question` with the model and the host's tools; reports each step. */
export const answer = (
  question: string,
  options: Options = {}
): Effect.Effect<string, AiError.AiError | AgentGaveUp, LanguageModel.LanguageModel | McpHost.McpHost> =>
  Effect.gen(function*() {
    const host = yield* McpHost.McpHost
    const report = options.onStep ?? (() => Effect.void)
    const maxSteps = options.maxSteps ?? 8
    let prompt = Prompt.make([
      { role: "system", content: options.system ?? defaultSystem },
      { role: "user", content: question }
    ])
    for (let step = 1; step <= maxSteps; step++) {
      const tools = yield* McpToolkit.fromHost(host)
      const response = yield* LanguageModel.generateText({ prompt, toolkit: tools.withHandler }).pipe(
        McpToolkit.withProgress(({ progress, tool }) =>
          report(Step.Progress({ tool: tools.names.get(tool) ?? tool, ...progress, total: progress.total }))
        )
      )
      for (const call of response.toolCalls) {
        yield* report(Step.ToolCall({ step, tool: tools.names.get(call.name) ?? call.name, params: call.params }))
      }
      for (const result of response.toolResults) {
        yield* report(
          Step.ToolResult({
            step,
            tool: tools.names.get(result.name) ?? result.name,
            failed: result.isFailure,
            summary: summarize(result.encodedResult)
          })
        )
      }
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
      if (response.toolCalls.length === 0) {
        yield* report(Step.Answer({ step, text: response.text }))
        return response.text
      }
    }
    return yield* new AgentGaveUp({ steps: maxSteps })
  })
