/**
 * The host's catalogue: each connected server's tools, resources, resource templates and prompts, listed when it
 * connects and again when it says they changed; the whole is every server's lists, tools and prompts named
 * `<server><separator><name>`.
 */
import type { McpClient } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { HostEvent } from "../HostEvent.js"
import type * as McpHost from "../McpHost.js"
import type * as Servers from "./servers.js"

/** Publishes one of the host's events. */
export type Publish = (event: HostEvent) => Effect.Effect<boolean>

/** What a server offers, by its capabilities (an absent capability lists nothing). */
const listsOf = (client: McpClient.McpClientService) => {
  const caps = client.serverCapabilities
  const orNone = <A>(has: unknown, list: Effect.Effect<ReadonlyArray<A>, McpClient.McpClientError>) =>
    has === undefined ? Effect.succeed<ReadonlyArray<A>>([]) : list
  return Effect.all({
    tools: orNone(caps.tools, client.listTools()),
    resources: orNone(caps.resources, client.listResources()),
    resourceTemplates: orNone(caps.resources, client.listResourceTemplates()),
    prompts: orNone(caps.prompts, client.listPrompts())
  }, { concurrency: "unbounded" })
}

/** Lists what the server offers now, and says so with a CatalogueChanged event. */
export const refresh = (entry: Servers.Entry, client: McpClient.McpClientService, publish: Publish) =>
  Effect.gen(function*() {
    const lists = yield* listsOf(client)
    yield* Ref.set(entry.lists, lists)
    yield* publish(HostEvent.CatalogueChanged({
      server: entry.name,
      tools: lists.tools.length,
      resources: lists.resources.length,
      prompts: lists.prompts.length
    }))
  })

/** What tells the host that a server's lists changed: notifications, or a `subscriptions/listen` stream. */
const changesOf = (client: McpClient.McpClientService): Stream.Stream<unknown, unknown> => {
  if (!client.stateless) {
    return Stream.mergeAll([client.toolListChanged, client.resourceListChanged, client.promptListChanged], {
      concurrency: "unbounded"
    })
  }
  const caps = client.serverCapabilities
  return client.listen({
    ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {})
  }).pipe(Stream.filter((n) => n.method.endsWith("/list_changed")))
}

/** Refreshes the server's lists whenever it says they changed (debounced), for as long as the connection's scope. */
export const follow = (entry: Servers.Entry, client: McpClient.McpClientService, publish: Publish) =>
  changesOf(client).pipe(
    Stream.debounce("20 millis"),
    Stream.runForEach(() => Effect.ignore(refresh(entry, client, publish))),
    Effect.ignore,
    Effect.forkScoped
  )

/** Everything every connected server offers, tools and prompts under their prefixed names. */
export const collect = (servers: Servers.Servers, separator: string): Effect.Effect<McpHost.Catalogue> =>
  Effect.gen(function*() {
    const tools: Array<McpHost.HostTool> = []
    const resources: Array<McpHost.HostResource> = []
    const resourceTemplates: Array<McpHost.HostResourceTemplate> = []
    const prompts: Array<McpHost.HostPrompt> = []
    for (const entry of servers.values()) {
      const lists = yield* Ref.get(entry.lists)
      for (const tool of lists.tools) {
        tools.push({ name: `${entry.name}${separator}${tool.name}`, server: entry.name, tool })
      }
      for (const resource of lists.resources) {
        resources.push({ server: entry.name, resource })
      }
      for (const template of lists.resourceTemplates) resourceTemplates.push({ server: entry.name, template })
      for (const prompt of lists.prompts) {
        prompts.push({ name: `${entry.name}${separator}${prompt.name}`, server: entry.name, prompt })
      }
    }
    return { tools, resources, resourceTemplates, prompts }
  })
