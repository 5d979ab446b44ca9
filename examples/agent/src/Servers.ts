/**
 * The agent's servers: the everything server and the almanac (an `@effect/ai` Toolkit served by `ToolkitServer`),
 * each a child process over stdio, under one host.
 */
import { McpHost } from "@effect-mcp/host"
import type * as Layer from "effect/Layer"
import { fileURLToPath } from "node:url"

const everything = fileURLToPath(new URL("../../everything/dist/main.js", import.meta.url))
const almanac = fileURLToPath(new URL("../dist/almanacServer.js", import.meta.url))

/** The host's options: both servers over stdio, their stderr dropped (the agent's output is its steps). */
export const options: McpHost.Options = {
  servers: {
    everything: { command: process.execPath, args: [everything, "--stdio"] },
    almanac: { command: process.execPath, args: [almanac] }
  },
  stderr: "ignore"
}

/** The host of the agent's servers. */
export const host: Layer.Layer<McpHost.McpHost> = McpHost.layer(options)
