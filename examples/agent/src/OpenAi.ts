/** The agent's model on OpenAI (or any OpenAI-compatible service): `OPENAI_API_KEY`, `OPENAI_BASE_URL`. */
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * `model` on OpenAI, its key and URL from the environment. Strict mode is off: it requires every property of a tool's
 * schema to be required and closed, which an MCP server's tool schemas need not be.
 */
export const layer = (model: string): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> =>
  OpenAiLanguageModel.layer({ model, config: { strict: false } }).pipe(
    Layer.provide(
      OpenAiClient.layerConfig({
        apiKey: Config.redacted("OPENAI_API_KEY"),
        apiUrl: Config.option(Config.string("OPENAI_BASE_URL")).pipe(Config.map(Option.getOrUndefined))
      })
    ),
    Layer.provide(NodeHttpClient.layerUndici)
  )
