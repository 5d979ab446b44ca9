/**
 * @effect-mcp/auth: OAuth for MCP clients, as Effect services and Layers.
 */

/** The OAuth middleware of the HTTP client transport: discovery, login, refresh, step-up, client credentials. */
export * as OAuthClient from "./OAuthClient.js"

/** Why an OAuth flow failed. */
export * as OAuthError from "./OAuthError.js"

/** The interactive step of a login: a loopback redirect listener, or a headless redirect follower. */
export * as InteractiveStep from "./InteractiveStep.js"

/** Where client identities and tokens are kept: in memory, or a 0600 file. */
export * as TokenStore from "./TokenStore.js"
