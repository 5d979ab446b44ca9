/**
 * @effect-mcp/core: the protocol engine, McpServer and McpClient, and the in-memory transport.
 */

/** Services that answer server→client requests on the client. */
export * as ClientHandlers from "./ClientHandlers.js"

/** Typed elicitation: a form as an Effect Schema, the answer decoded into its type. */
export * as Elicitation from "./Elicitation.js"

/** The event bus of a server that runs as several processes. */
export * as EventBus from "./EventBus.js"

/** Local errors. */
export * as Errors from "./Errors.js"

/** The in-memory transport. */
export * as InMemoryTransport from "./InMemoryTransport.js"

/** The MCP client. */
export * as McpClient from "./McpClient.js"

/** The MCP server. */
export * as McpServer from "./McpServer.js"

/** Effect logs inside a handler, forwarded to the client as `notifications/message`. */
export * as McpLogger from "./McpLogger.js"

/** Telemetry: spans and operation durations (OpenTelemetry conventions for MCP). */
export * as McpTelemetry from "./McpTelemetry.js"

/** Test helpers (in-memory client and server). */
export * as McpTest from "./McpTest.js"

/** An MCP client for code outside Effect: every call returns a Promise. */
export * as PromiseClient from "./PromiseClient.js"

/** Prompt definitions. */
export * as Prompt from "./Prompt.js"

/** The context of a request inside a handler. */
export * as RequestContext from "./RequestContext.js"

/** The keys that sign multi-round-trip request states, and their rotation. */
export * as RequestStateKeys from "./RequestStateKeys.js"

/** Resource and template definitions. */
export * as Resource from "./Resource.js"

/** The task store of a server. */
export * as TaskStore from "./TaskStore.js"

/** Tool definitions. */
export * as Tool from "./Tool.js"

/** The transport contract. */
export * as Transport from "./Transport.js"
