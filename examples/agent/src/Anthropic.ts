/** The agent's model on Anthropic: `ANTHROPIC_API_KEY`. */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Layer from "effect/Layer"

/** `model` on Anthropic, its key from the environment. */
export const layer = (model: string): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> =>
  AnthropicLanguageModel.layer({ model }).pipe(
    Layer.provide(AnthropicClient.layerConfig({ apiKey: Config.redacted("ANTHROPIC_API_KEY") })),
    Layer.provide(NodeHttpClient.layerUndici)
  )
