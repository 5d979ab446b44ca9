/**
 * Why an OAuth client flow failed. Every failure names what went wrong and where (a URL, an issuer, an OAuth error
 * code), never a token, a code, a verifier or a client secret.
 */
import * as Data from "effect/Data"

/** What stage of the flow failed. */
export type Stage =
  | "resource-metadata"
  | "authorization-server-metadata"
  | "registration"
  | "authorization"
  | "token"
  | "refresh"
  | "client-credentials"
  | "token-exchange"
  | "store"

/** An authorization server or protected resource could not be reached, or answered something unusable. */
export class AuthServerError extends Data.TaggedError("AuthServerError")<{
  readonly stage: Stage
  readonly reason: string
}> {
  override get message(): string {
    return `OAuth ${this.stage}: ${this.reason}`
  }
}

/** The authorization server answered an OAuth error (RFC 6749 §5.2): its code and description. */
export class OAuthErrorResponse extends Data.TaggedError("OAuthErrorResponse")<{
  readonly stage: Stage
  readonly error: string
  readonly description?: string | undefined
}> {
  override get message(): string {
    return `OAuth ${this.stage}: ${this.error}${this.description === undefined ? "" : ` (${this.description})`}`
  }
}

/** The flow was refused locally: a server without PKCE S256, a redirect with a wrong `state` or `iss`, and so on. */
export class AuthorizationRefused extends Data.TaggedError("AuthorizationRefused")<{
  readonly reason: string
}> {
  override get message(): string {
    return `OAuth authorization refused: ${this.reason}`
  }
}

/** The interactive step did not complete: the user did not finish, or the redirect never came. */
export class InteractionFailed extends Data.TaggedError("InteractionFailed")<{
  readonly reason: string
}> {
  override get message(): string {
    return `OAuth interaction failed: ${this.reason}`
  }
}

/** The token store could not be read or written. */
export class TokenStoreError extends Data.TaggedError("TokenStoreError")<{
  readonly reason: string
}> {
  override get message(): string {
    return `token store: ${this.reason}`
  }
}

/** Any failure of an OAuth client flow. */
export type OAuthError =
  | AuthServerError
  | OAuthErrorResponse
  | AuthorizationRefused
  | InteractionFailed
  | TokenStoreError
