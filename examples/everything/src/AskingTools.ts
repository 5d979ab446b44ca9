/**
 * The everything server's tools that ask the client something during the call: sampling (`test_sampling`) and
 * elicitation (`test_elicitation`, and the SEP-1034 defaults and SEP-1330 enum forms).
 */
import { McpServer, RequestContext, Tool } from "@effect-mcp/core"
import type { Mcp, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** Turns a failed server→client request into a tool error the model can read. */
const asToolError = (what: string) => (error: McpError.McpError) =>
  new Tool.ToolError({ message: `${what} failed: ${error.message}` })

const textOf = (content: Mcp.CreateMessageResult["content"]): string => {
  const blocks = Array.isArray(content) ? content : [content]
  return blocks.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n")
}

/** `test_sampling`: asks the client's model to answer `prompt`, returns `LLM response: <answer>`. */
export const Sampling = McpServer.tool({
  name: "test_sampling",
  description: "Asks the client's LLM to answer a prompt (sampling/createMessage)",
  input: Schema.Struct({ prompt: Schema.String.annotations({ description: "The prompt to send to the LLM" }) }),
  handler: ({ prompt }) =>
    RequestContext.sample({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100
    }).pipe(
      Effect.mapError(asToolError("Sampling")),
      Effect.map((result) => `LLM response: ${textOf(result.content)}`)
    )
})

const elicitationSummary = (result: Mcp.ElicitResult) =>
  `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`

/** `test_elicitation`: asks the user for a username and an email, returns their answer. */
export const Elicitation = McpServer.tool({
  name: "test_elicitation",
  description: "Asks the user, through the client, for a username and an email (elicitation/create)",
  input: Schema.Struct({ message: Schema.String.annotations({ description: "The message to show the user" }) }),
  handler: ({ message }) =>
    RequestContext.elicit({
      message,
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" }
        },
        required: ["username", "email"]
      }
    }).pipe(
      Effect.mapError(asToolError("Elicitation")),
      Effect.map((result) => `User response: ${elicitationSummary(result)}`)
    )
})

type RequestedSchema = Extract<Mcp.ElicitRequestParams, { readonly requestedSchema: unknown }>["requestedSchema"]

/**
 * The SEP-1034 form: a default for every primitive type. (The domain model's string and number
 * schemas lack `default`, though 2025-11-25 has it, hence the widening.)
 */
export const defaultsSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "Your name", default: "John Doe" },
    age: { type: "integer", description: "Your age", default: 30 },
    score: { type: "number", description: "Your score", default: 95.5 },
    status: { type: "string", description: "Your status", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", description: "Whether you are verified", default: true }
  }
} as const

/** The SEP-1330 form: the five enum shapes. */
export const enumsSchema = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", description: "Pick one", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      description: "Pick one (titled)",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" }
      ]
    },
    legacyEnum: {
      type: "string",
      description: "Pick one (legacy titles)",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"]
    },
    untitledMulti: {
      type: "array",
      description: "Pick any",
      items: { type: "string", enum: ["option1", "option2", "option3"] }
    },
    titledMulti: {
      type: "array",
      description: "Pick any (titled)",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" }
        ]
      }
    }
  }
} as const

const elicitForm = (message: string, schema: object) =>
  RequestContext.elicit({ message, requestedSchema: schema as RequestedSchema }).pipe(
    Effect.mapError(asToolError("Elicitation")),
    Effect.map((result) => `Elicitation completed: ${elicitationSummary(result)}`)
  )

/** `test_elicitation_sep1034_defaults`: elicits a form whose fields all have defaults. */
export const ElicitationDefaults = McpServer.tool({
  name: "test_elicitation_sep1034_defaults",
  description: "Elicits a form with a default value for every primitive type (SEP-1034)",
  input: Tool.NoInput,
  handler: () => elicitForm("Please review and update the form fields with defaults", defaultsSchema)
})

/** `test_elicitation_sep1330_enums`: elicits a form with every enum shape. */
export const ElicitationEnums = McpServer.tool({
  name: "test_elicitation_sep1330_enums",
  description: "Elicits a form with every enum shape: untitled, titled, legacy, multi-select (SEP-1330)",
  input: Tool.NoInput,
  handler: () => elicitForm("Please pick from each kind of enum", enumsSchema)
})
