/**
 * @effect-mcp/schema: the wire. Every MCP message of every revision as an Effect Schema.
 */

/** The version-neutral domain model: every MCP type of every revision. */
export * as Mcp from "./Mcp.js"

/** Per-revision encoders and decoders. */
export * as Codec from "./Codec.js"

/** Recursive JSON value schemas. */
export * as Json from "./Json.js"

/** The JSON-RPC 2.0 envelope. */
export * as JsonRpc from "./JsonRpc.js"

/** Wire errors with their JSON-RPC codes. */
export * as McpError from "./McpError.js"

/** The method table. */
export * as Method from "./Method.js"

/** Protocol revisions. */
export * as Revision from "./Revision.js"

/** Each revision's exact schemas, built when first read: `Revisions.V2025_11_25.definitions.Tool`. */
export * as Revisions from "./generated/index.js"
