/** The `inspect` command: everything a server offers, for people or as JSON. */
import type { Mcp } from "@effect-mcp/schema"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { json, print } from "../output.js"
import * as Render from "../render.js"
import { against, url } from "../server.js"

/** `inspect`: a server's revision, capabilities, tools, resources, templates and prompts. */
export const inspect = (server: ReadonlyArray<string>) =>
  Command.make("inspect", { url, json }, ({ json, url }) =>
    against(server, url, (client) =>
      Effect.gen(function*() {
        const caps = client.serverCapabilities
        const none = <A>() => Effect.succeed<ReadonlyArray<A>>([])
        const tools = caps.tools ? yield* client.listTools() : yield* none<Mcp.Tool>()
        const resources = caps.resources ? yield* client.listResources() : yield* none<Mcp.Resource>()
        const templates = caps.resources ? yield* client.listResourceTemplates() : yield* none<Mcp.ResourceTemplate>()
        const prompts = caps.prompts ? yield* client.listPrompts() : yield* none<Mcp.Prompt>()
        if (json) {
          return yield* print({
            revision: client.revision,
            serverInfo: client.serverInfo,
            capabilities: caps,
            instructions: client.instructions,
            tools,
            resources,
            resourceTemplates: templates,
            prompts
          })
        }
        const out = [
          `${Render.bold(`${client.serverInfo.name} ${client.serverInfo.version}`)}  ${
            Render.dim(`revision ${client.revision}${client.stateless ? " (stateless)" : ""}`)
          }`,
          ...(client.instructions ? [client.instructions] : []),
          "",
          Render.section("Capabilities", [Object.keys(caps).join(", ") || "(none)"]),
          Render.section(
            `Tools (${tools.length})`,
            tools.flatMap((t) => [
              `${Render.bold(t.name)} ${Render.signature(t.inputSchema)}`,
              ...(t.description ? [`  ${Render.dim(t.description)}`] : [])
            ])
          ),
          Render.section(
            `Resources (${resources.length})`,
            Render.columns(resources.map((r) => [r.uri, r.mimeType ?? "", r.name]))
          ),
          Render.section(
            `Resource templates (${templates.length})`,
            Render.columns(templates.map((t) => [t.uriTemplate, t.mimeType ?? "", t.name]))
          ),
          Render.section(
            `Prompts (${prompts.length})`,
            prompts.map((p) =>
              `${Render.bold(p.name)} (${
                (p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : "?"}`).join(", ")
              })${p.description ? `  ${Render.dim(p.description)}` : ""}`
            )
          )
        ]
        yield* Console.log(out.join("\n").trimEnd())
      }))).pipe(
      Command.withDescription("list a server's revision, capabilities, tools, resources, templates and prompts")
    )
