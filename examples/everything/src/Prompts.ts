/**
 * The everything server's prompts: a simple one, one with (completable) arguments, one embedding a
 * resource and one carrying an image.
 */
import { McpServer } from "@effect-mcp/core"
import type { Mcp } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Media from "./Media.js"

/** `test_simple_prompt`: one user message. */
export const SimplePrompt = McpServer.prompt({
  name: "test_simple_prompt",
  description: "A simple prompt without arguments",
  handler: () => Effect.succeed("This is a simple prompt for testing.")
})

/** The words `test_prompt_with_arguments` completes its arguments from. */
export const words: ReadonlyArray<string> = ["hello", "help", "world", "paris", "park", "party", "test", "testing"]

const completeWord = (value: string) => Effect.succeed(words.filter((w) => w.startsWith(value.toLowerCase())))

/** `test_prompt_with_arguments`: substitutes `arg1` and `arg2`. */
export const PromptWithArguments = McpServer.prompt({
  name: "test_prompt_with_arguments",
  description: "A prompt with two required arguments",
  input: Schema.Struct({
    arg1: Schema.String.annotations({ description: "First test argument" }),
    arg2: Schema.String.annotations({ description: "Second test argument" })
  }),
  complete: { arg1: completeWord, arg2: completeWord },
  handler: ({ arg1, arg2 }) => Effect.succeed(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)
})

/** `test_prompt_with_embedded_resource`: embeds a text resource at `resourceUri`, then asks to process it. */
export const PromptWithEmbeddedResource = McpServer.prompt({
  name: "test_prompt_with_embedded_resource",
  description: "A prompt that embeds a resource",
  input: Schema.Struct({
    resourceUri: Schema.String.annotations({ description: "URI of the resource to embed" })
  }),
  handler: ({ resourceUri }) =>
    Effect.succeed<ReadonlyArray<Mcp.PromptMessage>>([
      {
        role: "user",
        content: {
          type: "resource",
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
        }
      },
      { role: "user", content: { type: "text", text: "Please process the embedded resource above." } }
    ])
})

/** `test_prompt_with_image`: an image, then a request to analyze it. */
export const PromptWithImage = McpServer.prompt({
  name: "test_prompt_with_image",
  description: "A prompt that carries an image",
  handler: () =>
    Effect.succeed<ReadonlyArray<Mcp.PromptMessage>>([
      { role: "user", content: { type: "image", data: Media.redPixelPng, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } }
    ])
})

/** Every prompt of the everything server. */
export const layer = Layer.mergeAll(SimplePrompt, PromptWithArguments, PromptWithEmbeddedResource, PromptWithImage)
