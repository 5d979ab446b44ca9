/**
 * Required scopes on a protected endpoint, checked before a request reaches the server: a `tools/call`,
 * `resources/read` or `prompts/get` whose definition requires scopes its token lacks gets 403 `insufficient_scope`
 * (401 when it carries no token), with a `WWW-Authenticate` challenge naming the scopes and the resource metadata.
 * Batches and the methods' other routes (legacy HTTP+SSE) are refused per message by core, with -32001.
 */
import type { McpServer, Transport } from "@effect-mcp/core"
import { Json, JsonRpc } from "@effect-mcp/schema"
import * as Auth from "./auth.js"
import type { Reply } from "./exchange.js"

/** The refusal of a request its identity may not make (403/401), or undefined when it may go on. */
export type ScopeCheck = (body: unknown, auth: Transport.AuthInfo | undefined) => Reply | undefined

/** The scopes the definition a request names requires, if any. */
const requiredBy = (
  server: McpServer.McpServerService,
  method: string,
  params: Record<string, unknown>
): ReadonlyArray<string> | undefined => {
  switch (method) {
    case "tools/call":
      return typeof params.name === "string" ? server.tool(params.name)?.scopes : undefined
    case "prompts/get":
      return typeof params.name === "string" ? server.prompt(params.name)?.scopes : undefined
    case "resources/read": {
      const uri = params.uri
      if (typeof uri !== "string") return undefined
      const exact = server.resource(uri)
      if (exact !== undefined) return exact.scopes
      return server.templates().find((t) => t.template.match(uri) !== undefined)?.scopes
    }
    default:
      return undefined
  }
}

/** The scope check of an endpoint whose metadata (when served) is at `metadataUrl`. */
export const make =
  (server: McpServer.McpServerService, metadataUrl: string | undefined): ScopeCheck => (body, auth) => {
    if (!JsonRpc.looksLikeRequest(body)) return undefined
    const required = requiredBy(server, body.method, Json.record(Json.record(body).params))
    if (required === undefined || required.length === 0) return undefined
    const granted = auth?.scopes ?? []
    const missing = required.filter((scope) => !granted.includes(scope))
    if (missing.length === 0) return undefined
    // The challenge names every scope the call needs, so that a client asking for them gets a token that suffices.
    const scope = required.join(" ")
    return Auth.challenge(
      auth === undefined
        ? new Auth.Unauthorized({ reason: `A token with the scope ${scope} is required`, scope })
        : new Auth.Unauthorized({
          reason: `The token lacks the scope ${missing.join(" ")}`,
          error: "insufficient_scope",
          scope
        }),
      metadataUrl,
      body.id
    )
  }
