/**
 * A stand-in for a language model, for the tests and for a run with no provider configured: it plays a model that
 * knows how to answer "how many hours of <planet>'s day per moon?" with the host's tools. It reads everything it
 * needs from the conversation, as a model would: the planet from the question, the facts and the quotient from the
 * tool results; a failed call ends it with an answer that says what went wrong.
 */
import { McpToolkit, ScriptedLanguageModel } from "@effect-mcp/ai"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import type * as AiTool from "@effect/ai/Tool"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { failureText } from "./Agent.js"
import { Facts } from "./Almanac.js"

/** The text of the user's messages. */
const questionOf = (prompt: Prompt.Prompt): string =>
  prompt.content.flatMap((message) =>
    message.role !== "user"
      ? []
      : message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
  ).join(" ")

/** The structured content of the last tool result, decoded with `schema`, or the failure the model was given. */
const lastResult = <A, I>(prompt: Prompt.Prompt, schema: Schema.Schema<A, I>) => {
  const result = ScriptedLanguageModel.toolResults(prompt).at(-1)
  const failure = Schema.decodeUnknownOption(McpToolkit.ToolCallFailed)(result?.result)
  if (Option.isSome(failure)) return { _tag: "Failed", message: failureText(failure.value) } as const
  const output = Schema.decodeUnknownOption(McpToolkit.ToolOutput)(result?.result)
  const value = Option.flatMap(output, (o) => Schema.decodeUnknownOption(schema)(o.structuredContent))
  return Option.isSome(value)
    ? ({ _tag: "Value", value: value.value } as const)
    : ({ _tag: "Failed", message: "a tool answered in a form I cannot read" } as const)
}

/** The name under which the host offers a tool (`<server>__<tool>`). */
const toolNamed = (tools: ReadonlyArray<AiTool.Any>, suffix: string) => tools.find((t) => t.name.endsWith(suffix))

/** An answer that ends the conversation. */
const say = (text: string): ReadonlyArray<Response.PartEncoded> => [
  ScriptedLanguageModel.text(text),
  ScriptedLanguageModel.finish("stop")
]

/** A tool call, or an answer that says the tool is missing. */
const call = (tools: ReadonlyArray<AiTool.Any>, suffix: string, id: string, params: unknown) => {
  const tool = toolNamed(tools, suffix)
  return tool === undefined
    ? say(`I have no ${suffix} tool to find out.`)
    : [ScriptedLanguageModel.toolCall(id, tool.name, params), ScriptedLanguageModel.finish("tool-calls")]
}

const Quotient = Schema.Struct({ quotient: Schema.Number })

const turns: ReadonlyArray<ScriptedLanguageModel.Turn> = [
  ({ prompt, tools }) => {
    const planet = /\bon (\w+)/i.exec(questionOf(prompt))?.[1] ?? "Earth"
    return Effect.succeed(call(tools, "planet_facts", "call-facts", { planet }))
  },
  ({ prompt, tools }) => {
    const facts = lastResult(prompt, Facts)
    if (facts._tag === "Failed") return Effect.succeed(say(`I could not find out: ${facts.message}.`))
    const { dayLengthHours, moons, planet } = facts.value
    if (moons === 0) return Effect.succeed(say(`${planet} has no moons, so the question has no answer.`))
    return Effect.succeed(call(tools, "divide", "call-divide", { a: dayLengthHours, b: moons }))
  },
  ({ prompt }) => {
    const facts = ScriptedLanguageModel.toolResults(prompt).at(-2)
    const planet = Option.getOrUndefined(
      Option.flatMap(
        Schema.decodeUnknownOption(McpToolkit.ToolOutput)(facts?.result),
        (o) => Schema.decodeUnknownOption(Facts)(o.structuredContent)
      )
    )
    const quotient = lastResult(prompt, Quotient)
    return Effect.succeed(
      quotient._tag === "Failed" || planet === undefined
        ? say(`I could not work it out: ${quotient._tag === "Failed" ? quotient.message : "the facts are missing"}.`)
        : say(
          `A day on ${planet.planet} lasts ${planet.dayLengthHours} hours; with ${planet.moons} moon${
            planet.moons === 1 ? "" : "s"
          } that is ` +
            `${quotient.value.quotient} hours per moon.`
        )
    )
  }
]

/** The stand-in model as a Layer. */
export const layer: Layer.Layer<LanguageModel.LanguageModel> = ScriptedLanguageModel.layer(turns)
