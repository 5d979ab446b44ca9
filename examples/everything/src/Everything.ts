/**
 * The everything server: every tool, resource, template and prompt the MCP conformance suite's
 * server scenarios call for, plus `echo`, registered on one McpServer. Completion is served for
 * the prompt arguments and the template's `id`.
 */
import { McpServer } from "@effect-mcp/core"
import * as Layer from "effect/Layer"
import * as Prompts from "./Prompts.js"
import * as Resources from "./Resources.js"
import * as Tools from "./Tools.js"

/** How the everything server describes itself. */
export const info: McpServer.Options = {
  name: "effect-mcp-everything",
  version: "0.1.0",
  title: "effect-mcp everything server",
  description: "Everything the MCP conformance suite's server scenarios call for, built with effect-mcp"
}

/** Settings of the everything server. */
export interface Options {
  /** Settings of `test://watched-resource`. */
  readonly watched?: Resources.WatchedOptions
  /** The scopes a caller's token must grant to call `echo` (default none: anyone may). */
  readonly echoScopes?: ReadonlyArray<string>
}

/** The everything server with the given settings. */
export const make = (options: Options = {}): Layer.Layer<McpServer.McpServer> =>
  Layer.mergeAll(
    options.echoScopes === undefined ? Tools.layer : Tools.make({ echoScopes: options.echoScopes }),
    Resources.layer(options),
    Prompts.layer
  ).pipe(
    Layer.provideMerge(McpServer.layer(info))
  )

/** The everything server with default settings. */
export const layer: Layer.Layer<McpServer.McpServer> = make()
