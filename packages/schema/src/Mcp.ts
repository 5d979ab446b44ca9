/**
 * The version-neutral MCP domain model: every type of every revision, as one superset.
 * Encode a value for a peer with `Codec`; build messages with `JsonRpc`.
 */
export * from "./generated/Domain.js"
