/**
 * The method table: for every MCP method, its params and result types per revision, who sends it,
 * which revisions have it, and the capability it needs. The engine is driven by this table alone.
 */
import type * as Domain from "./generated/Domain.js"
import { type MethodFacts, methods, type MethodShape } from "./generated/methods.js"
import * as Revision from "./Revision.js"

export type { MethodFacts, MethodShape }

/** Which side must have declared which capability for a method to be used. */
export interface CapabilityRequirement {
  /** The side whose capabilities are checked. */
  readonly of: "server" | "client"
  /** The path into that side's capabilities, e.g. `["resources", "subscribe"]`. */
  readonly path: ReadonlyArray<string>
  /** The first revision whose capabilities have this path (earlier ones need no declaration). */
  readonly since?: Revision.Revision
}

/** One row of the method table. */
export interface MethodInfo extends MethodFacts {
  /** The capability the method needs, if any. */
  readonly capability: CapabilityRequirement | undefined
}

const server = (...path: Array<string>): CapabilityRequirement => ({ of: "server", path })
const client = (...path: Array<string>): CapabilityRequirement => ({ of: "client", path })

const capabilities: Readonly<Record<string, CapabilityRequirement>> = {
  "completion/complete": { of: "server", path: ["completions"], since: "2025-03-26" },
  "logging/setLevel": server("logging"),
  "prompts/get": server("prompts"),
  "prompts/list": server("prompts"),
  "resources/list": server("resources"),
  "resources/read": server("resources"),
  "resources/templates/list": server("resources"),
  "resources/subscribe": server("resources", "subscribe"),
  "resources/unsubscribe": server("resources", "subscribe"),
  "tools/call": server("tools"),
  "tools/list": server("tools"),
  "notifications/message": server("logging"),
  "notifications/prompts/list_changed": server("prompts", "listChanged"),
  "notifications/resources/list_changed": server("resources", "listChanged"),
  "notifications/resources/updated": server("resources", "subscribe"),
  "notifications/tools/list_changed": server("tools", "listChanged"),
  "sampling/createMessage": client("sampling"),
  "elicitation/create": client("elicitation"),
  "roots/list": client("roots"),
  "notifications/roots/list_changed": client("roots", "listChanged")
}

/** Every method, by name. */
export const table: ReadonlyMap<string, MethodInfo> = new Map(
  methods.map((m) => [m.method, { ...m, capability: capabilities[m.method] }])
)

/** The row of a method, if any revision has it. */
export const info = (method: string): MethodInfo | undefined => table.get(method)

/** The capability `method` needs under `revision`, if any. */
export const requirement = (method: string, revision: Revision.Revision): CapabilityRequirement | undefined => {
  const cap = table.get(method)?.capability
  return cap !== undefined && (cap.since === undefined || Revision.atLeast(revision, cap.since)) ? cap : undefined
}

/** How `revision` spells `method`, or undefined when that revision does not have it. */
export const shape = (method: string, revision: Revision.Revision): MethodShape | undefined =>
  table.get(method)?.byRevision[revision]

/** Whether a capabilities object declares the given path (each step present and not `false`). */
export const hasCapability = (capabilities: unknown, path: ReadonlyArray<string>): boolean => {
  let cur: unknown = capabilities
  for (const step of path) {
    if (typeof cur !== "object" || cur === null) return false
    cur = (cur as Record<string, unknown>)[step]
    if (cur === undefined || cur === false) return false
  }
  return true
}

/** The requests a client sends, with their params and result types. */
export interface ClientRequests {
  readonly "initialize": { readonly params: Domain.InitializeRequestParams; readonly result: Domain.InitializeResult }
  readonly "ping": { readonly params: Domain.PingRequestParams | undefined; readonly result: Domain.EmptyResult }
  readonly "server/discover": {
    readonly params: Domain.RequestParams | undefined
    readonly result: Domain.DiscoverResult
  }
  readonly "completion/complete": {
    readonly params: Domain.CompleteRequestParams
    readonly result: Domain.CompleteResult
  }
  readonly "logging/setLevel": { readonly params: Domain.SetLevelRequestParams; readonly result: Domain.EmptyResult }
  readonly "prompts/get": { readonly params: Domain.GetPromptRequestParams; readonly result: Domain.GetPromptResult }
  readonly "prompts/list": {
    readonly params: Domain.ListPromptsRequestParams | undefined
    readonly result: Domain.ListPromptsResult
  }
  readonly "resources/list": {
    readonly params: Domain.ListResourcesRequestParams | undefined
    readonly result: Domain.ListResourcesResult
  }
  readonly "resources/templates/list": {
    readonly params: Domain.ListResourceTemplatesRequestParams | undefined
    readonly result: Domain.ListResourceTemplatesResult
  }
  readonly "resources/read": {
    readonly params: Domain.ReadResourceRequestParams
    readonly result: Domain.ReadResourceResult
  }
  readonly "resources/subscribe": {
    readonly params: Domain.SubscribeRequestParams
    readonly result: Domain.EmptyResult
  }
  readonly "resources/unsubscribe": {
    readonly params: Domain.UnsubscribeRequestParams
    readonly result: Domain.EmptyResult
  }
  readonly "subscriptions/listen": {
    readonly params: Domain.SubscriptionsListenRequestParams
    readonly result: Domain.SubscriptionsListenResult
  }
  readonly "tools/list": {
    readonly params: Domain.ListToolsRequestParams | undefined
    readonly result: Domain.ListToolsResult
  }
  readonly "tools/call": {
    readonly params: Domain.CallToolRequestParams
    readonly result: Domain.CallToolResult | Domain.InputRequiredResult
  }
  readonly "tasks/get": { readonly params: Domain.GetTaskRequestParams; readonly result: Domain.GetTaskResult }
  readonly "tasks/result": {
    readonly params: Domain.GetTaskPayloadRequestParams
    readonly result: Domain.GetTaskPayloadResult
  }
  readonly "tasks/cancel": { readonly params: Domain.CancelTaskRequestParams; readonly result: Domain.CancelTaskResult }
  readonly "tasks/list": {
    readonly params: Domain.PaginatedRequestParams | undefined
    readonly result: Domain.ListTasksResult
  }
}

/** The requests a server sends (handshake revisions), with their params and result types. */
export interface ServerRequests {
  readonly "ping": { readonly params: Domain.PingRequestParams | undefined; readonly result: Domain.EmptyResult }
  readonly "sampling/createMessage": {
    readonly params: Domain.CreateMessageRequestParams
    readonly result: Domain.CreateMessageResult
  }
  readonly "elicitation/create": { readonly params: Domain.ElicitRequestParams; readonly result: Domain.ElicitResult }
  readonly "roots/list": {
    readonly params: Domain.ListRootsRequestParams | undefined
    readonly result: Domain.ListRootsResult
  }
}

/** Every request either side sends, with its params and result types (`ping` goes both ways, alike). */
export interface Requests extends ClientRequests, ServerRequests {}

/** The result type of a request method. */
export type ResultOf<M extends keyof Requests> = Requests[M]["result"]

/** The notifications either side sends, with their params types. */
export interface Notifications {
  readonly "notifications/initialized": Domain.InitializedNotificationParams | undefined
  readonly "notifications/cancelled": Domain.CancelledNotificationParams
  readonly "notifications/progress": Domain.ProgressNotificationParams
  readonly "notifications/message": Domain.LoggingMessageNotificationParams
  readonly "notifications/prompts/list_changed": Domain.PromptListChangedNotificationParams | undefined
  readonly "notifications/resources/list_changed": Domain.ResourceListChangedNotificationParams | undefined
  readonly "notifications/tools/list_changed": Domain.ToolListChangedNotificationParams | undefined
  readonly "notifications/resources/updated": Domain.ResourceUpdatedNotificationParams
  readonly "notifications/roots/list_changed": Domain.RootsListChangedNotificationParams | undefined
  readonly "notifications/elicitation/complete": Domain.ElicitationCompleteNotificationParams
  readonly "notifications/tasks/status": Domain.TaskStatusNotificationParams
  readonly "notifications/subscriptions/acknowledged": Domain.SubscriptionsAcknowledgedNotificationParams
}
