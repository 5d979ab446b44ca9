/**
 * @effect-mcp/ai: the @effect/ai bridge: an @effect/ai Toolkit served as MCP tools, MCP tools as an @effect/ai
 * Toolkit, and a scripted LanguageModel for tests.
 */

/** MCP tools (of a client or a host) as an @effect/ai Toolkit. */
export * as McpToolkit from "./McpToolkit.js"

/** An @effect/ai Toolkit served as MCP tools. */
export * as ToolkitServer from "./ToolkitServer.js"

/** A LanguageModel that answers from a script, for tests and examples. */
export * as ScriptedLanguageModel from "./ScriptedLanguageModel.js"
