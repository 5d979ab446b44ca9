/** What a verified token's claims (a JWT's payload, or an introspection answer) say about its client and scopes. */
import type { Transport } from "@effect-mcp/core"

/** The scopes of `scope` (space-separated) or `scp` (a list, or a space-separated string). */
export const scopesOf = (claims: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const words = (u: unknown): ReadonlyArray<string> =>
    typeof u === "string"
      ? u.split(" ").filter((s) => s.length > 0)
      : Array.isArray(u)
      ? u.filter((s): s is string => typeof s === "string" && s.length > 0)
      : []
  return claims.scope !== undefined ? words(claims.scope) : words(claims.scp)
}

/** The client the token was issued to: `client_id`, else `azp`. */
export const clientIdOf = (claims: Readonly<Record<string, unknown>>): string | undefined =>
  typeof claims.client_id === "string" ? claims.client_id : typeof claims.azp === "string" ? claims.azp : undefined

/** Whether the `aud` claim (a string or a list) names one of `audiences`. */
export const hasAudience = (aud: unknown, audiences: ReadonlyArray<string>): boolean =>
  typeof aud === "string" ? audiences.includes(aud) : Array.isArray(aud) && aud.some((a) => audiences.includes(a))

/** The identity handlers see: the token, its client, its scopes, and the claims themselves under `extra`. */
export const authInfo = (token: string, claims: Readonly<Record<string, unknown>>): Transport.AuthInfo => {
  const clientId = clientIdOf(claims)
  return {
    token,
    ...(clientId === undefined ? {} : { clientId }),
    scopes: scopesOf(claims),
    extra: claims
  }
}
