/**
 * Which language model the agent talks to, chosen by environment variables: OpenAI when `OPENAI_API_KEY` is set
 * (`OPENAI_MODEL`, default gpt-4o-mini; `OPENAI_BASE_URL` for any OpenAI-compatible service), else Anthropic when
 * `ANTHROPIC_API_KEY` is set (`ANTHROPIC_MODEL`, default claude-sonnet-4-5), else the scripted stand-in. A provider's
 * modules are loaded only when it is chosen (they take seconds to load).
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ScriptedModel from "./ScriptedModel.js"

/** The chosen model: what to call it, and its Layer. */
export interface Chosen {
  readonly description: string
  readonly layer: Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError>
}

const isSet = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.isSome))

/** The model the environment configures. */
export const fromEnvironment: Effect.Effect<Chosen, ConfigError.ConfigError> = Effect.gen(function*() {
  if (yield* isSet("OPENAI_API_KEY")) {
    const model = yield* Config.string("OPENAI_MODEL").pipe(Config.withDefault("gpt-4o-mini"))
    return {
      description: `OpenAI ${model}`,
      layer: Layer.unwrapEffect(Effect.promise(() => import("./OpenAi.js")).pipe(Effect.map((m) => m.layer(model))))
    }
  }
  if (yield* isSet("ANTHROPIC_API_KEY")) {
    const model = yield* Config.string("ANTHROPIC_MODEL").pipe(Config.withDefault("claude-sonnet-4-5"))
    return {
      description: `Anthropic ${model}`,
      layer: Layer.unwrapEffect(Effect.promise(() => import("./Anthropic.js")).pipe(Effect.map((m) => m.layer(model))))
    }
  }
  return {
    description: "scripted (set OPENAI_API_KEY or ANTHROPIC_API_KEY to use a real model)",
    layer: ScriptedModel.layer
  }
})
