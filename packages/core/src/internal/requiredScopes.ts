/**
 * Required scopes of a tool, resource or prompt: which of them a request's identity lacks, and the refusal before
 * the handler runs. The refusal is -32001, the code the HTTP endpoint answers its 401/403 with, so that a client
 * reads the same error in process (stdio, in memory) as in the body of an HTTP 403 `insufficient_scope`.
 */
import { McpError } from "@effect-mcp/schema"
import type { AuthInfo } from "../Transport.js"

/** The scopes of `required` that `auth` does not grant (an anonymous request grants none). */
export const lacking = (required: ReadonlyArray<string>, auth: AuthInfo | undefined): ReadonlyArray<string> => {
  const granted = auth?.scopes ?? []
  return required.filter((scope) => !granted.includes(scope))
}

/** The JSON-RPC error of a request that lacks scopes (-32001, naming them). */
export const refusal = (what: string, missing: ReadonlyArray<string>): McpError.JsonRpcError =>
  new McpError.JsonRpcError({
    code: McpError.codes.Unauthorized,
    message: `Insufficient scope: ${what} requires ${missing.join(" ")}`,
    data: { error: "insufficient_scope", scope: missing.join(" ") }
  })

/** The refusal of a request for `what` that lacks some of `required` (none: undefined, the request may go on). */
export const refused = (
  required: ReadonlyArray<string> | undefined,
  what: string,
  auth: AuthInfo | undefined
): McpError.JsonRpcError | undefined => {
  if (required === undefined) return undefined
  const missing = lacking(required, auth)
  return missing.length === 0 ? undefined : refusal(what, missing)
}
