/**
 * The grants an OAuth client makes once it knows its authorization server: the authorization code flow with PKCE
 * S256, `state`, the RFC 8707 `resource` and the RFC 9207 `iss` check before the code is redeemed; a refresh; and the
 * client-credentials grant of machine clients. Each ends in the tokens to keep; none of them ever puts a secret
 * (token, code, verifier, client secret) in an error.
 */
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import type { InteractiveStepService } from "../InteractiveStep.js"
import { AuthorizationRefused, type OAuthError } from "../OAuthError.js"
import type * as TokenStore from "../TokenStore.js"
import * as Discovery from "./discovery.js"
import * as Documents from "./documents.js"
import type * as Exchange from "./exchange.js"
import * as Identity from "./identity.js"
import * as Pkce from "./pkce.js"
import * as TokenRequest from "./tokenRequest.js"

/** A machine client's credentials (the client-credentials grant). */
export interface ClientCredentials {
  readonly clientId: string
  /** Its secret (client_secret_basic, or client_secret_post when the server supports only that). */
  readonly clientSecret?: string | undefined
  /** Its signing key (private_key_jwt). */
  readonly signingKey?: TokenRequest.SigningKey | undefined
}

/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"): the user's identity assertion from the enterprise
 * identity provider is exchanged there (RFC 8693) for an identity assertion grant (ID-JAG) for the authorization
 * server, which the client then presents as a JWT bearer grant (RFC 7523).
 */
export interface IdentityAssertion {
  /** The identity provider's token endpoint. */
  readonly idpTokenEndpoint: string
  /** The identity provider's issuer (default: the token endpoint's origin). */
  readonly idpIssuer?: string | undefined
  /** The user's ID token at the identity provider. */
  readonly idToken: string
  /** This client at the identity provider. */
  readonly idpClientId: string
  /** Its secret there, if it has one (client_secret_basic). */
  readonly idpClientSecret?: string | undefined
  /** This client at the MCP authorization server. */
  readonly clientId: string
  /** Its secret there, if it has one. */
  readonly clientSecret?: string | undefined
}

/** Splits a space-separated scope. */
export const scopes = (scope: string | undefined): ReadonlyArray<string> =>
  scope === undefined ? [] : scope.split(" ").filter((s) => s !== "")

/** Joins scopes, without repeats; `undefined` for none. */
export const joinScopes = (...lists: ReadonlyArray<ReadonlyArray<string>>): string | undefined => {
  const all = [...new Set(lists.flat())]
  return all.length === 0 ? undefined : all.join(" ")
}

/** The tokens to keep from a token answer. */
const keep = (
  answer: Documents.TokenAnswer,
  discovered: Discovery.Discovered,
  clientId: string,
  requested: string | undefined,
  previous?: TokenStore.StoredTokens
): TokenStore.StoredTokens => {
  const refreshToken = answer.refresh_token ?? previous?.refreshToken
  const scope = answer.scope ?? requested ?? previous?.scope
  return {
    resource: discovered.resource,
    issuer: discovered.issuer,
    clientId,
    accessToken: answer.access_token,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(answer.expires_in === undefined ? {} : { expiresAt: Date.now() + answer.expires_in * 1000 }),
    ...(scope === undefined ? {} : { scope })
  }
}

/** Runs the authorization code flow for `scope` and redeems the code. */
export const authorizationCode = (
  execute: McpHttpClient.Execute,
  store: TokenStore.TokenStoreService,
  step: InteractiveStepService,
  discovered: Discovery.Discovered,
  scope: string | undefined,
  description: Identity.ClientDescription,
  limits: Exchange.Limits
): Effect.Effect<TokenStore.StoredTokens, OAuthError> =>
  Effect.scoped(Effect.gen(function*() {
    const server = discovered.server
    if (discovered.hasMetadata && !(server.code_challenge_methods_supported ?? []).includes("S256")) {
      return yield* new AuthorizationRefused({
        reason: `${discovered.issuer} does not list S256 in code_challenge_methods_supported: PKCE cannot be used`
      })
    }
    const endpoint = server.authorization_endpoint
    if (endpoint === undefined) {
      return yield* new AuthorizationRefused({ reason: `${discovered.issuer} has no authorization endpoint` })
    }
    const pending = yield* step.begin
    const client = yield* Identity.resolve(execute, store, discovered, pending.redirectUri, description, limits)
    const pkce = Pkce.make()
    const state = Pkce.randomString(16)
    const url = new URL(endpoint)
    const query: Record<string, string | undefined> = {
      response_type: "code",
      client_id: client.clientId,
      redirect_uri: pending.redirectUri,
      code_challenge: pkce.challenge,
      code_challenge_method: "S256",
      state,
      resource: discovered.resource,
      scope
    }
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value)
    const callback = yield* pending.complete(url.href)
    if (callback.state !== state) {
      return yield* new AuthorizationRefused({ reason: "the redirect's state is not the one sent" })
    }
    if (
      callback.iss !== undefined
        ? !Discovery.sameUrl(callback.iss, server.issuer)
        : server.authorization_response_iss_parameter_supported === true
    ) {
      return yield* new AuthorizationRefused({
        reason: callback.iss === undefined
          ? `${server.issuer} promises an iss in its redirects and sent none`
          : `the redirect's iss is not ${server.issuer}`
      })
    }
    const answer = yield* TokenRequest.request(execute, "token", server, client, {
      grant_type: "authorization_code",
      code: callback.code,
      redirect_uri: pending.redirectUri,
      code_verifier: pkce.verifier,
      resource: discovered.resource
    }, limits)
    return keep(answer, discovered, client.clientId, scope)
  }))

/** The client a refresh is made as: the one the tokens were granted to, if it is still known for their issuer. */
const refreshingClient = (
  store: TokenStore.TokenStoreService,
  discovered: Discovery.Discovered,
  tokens: TokenStore.StoredTokens,
  description: Identity.ClientDescription
) =>
  Effect.map(store.client(discovered.issuer), (kept): TokenRequest.ClientAuth | undefined => {
    if (kept !== undefined && kept.clientId === tokens.clientId) return Identity.registered(kept)
    const pre = description.preRegistered
    if (pre !== undefined && pre.clientId === tokens.clientId) return Identity.preRegisteredAuth(pre, discovered)
    return description.metadataUrl === tokens.clientId ? { clientId: tokens.clientId, method: "none" } : undefined
  })

/** Refreshes the tokens (only at the server that granted them); `undefined` when they cannot be refreshed. */
export const refresh = (
  execute: McpHttpClient.Execute,
  store: TokenStore.TokenStoreService,
  discovered: Discovery.Discovered,
  tokens: TokenStore.StoredTokens,
  description: Identity.ClientDescription,
  limits: Exchange.Limits
): Effect.Effect<TokenStore.StoredTokens | undefined, OAuthError> =>
  Effect.gen(function*() {
    if (tokens.refreshToken === undefined || tokens.issuer !== discovered.issuer) return undefined
    const client = yield* refreshingClient(store, discovered, tokens, description)
    if (client === undefined) return undefined
    const answer = yield* TokenRequest.request(execute, "refresh", discovered.server, client, {
      grant_type: "refresh_token",
      refresh_token: tokens.refreshToken,
      resource: discovered.resource
    }, limits)
    return keep(answer, discovered, client.clientId, tokens.scope, tokens)
  })

/** The client-credentials grant of a machine client. */
export const clientCredentials = (
  execute: McpHttpClient.Execute,
  discovered: Discovery.Discovered,
  credentials: ClientCredentials,
  scope: string | undefined,
  limits: Exchange.Limits
): Effect.Effect<TokenStore.StoredTokens, OAuthError> =>
  Effect.gen(function*() {
    const supported = discovered.server.token_endpoint_auth_methods_supported
    const method: TokenRequest.ClientAuth["method"] = credentials.signingKey !== undefined
      ? "private_key_jwt"
      : TokenRequest.pickMethod(supported, credentials.clientSecret !== undefined)
    const answer = yield* TokenRequest.request(
      execute,
      "client-credentials",
      discovered.server,
      {
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        signingKey: credentials.signingKey,
        method
      },
      { grant_type: "client_credentials", scope, resource: discovered.resource },
      limits
    )
    return keep(answer, discovered, credentials.clientId, scope)
  })

const idJagType = "urn:ietf:params:oauth:token-type:id-jag"

/** The enterprise-managed grant: an ID-JAG from the identity provider, then a JWT bearer grant with it. */
export const identityAssertion = (
  execute: McpHttpClient.Execute,
  discovered: Discovery.Discovered,
  assertion: IdentityAssertion,
  scope: string | undefined,
  limits: Exchange.Limits
): Effect.Effect<TokenStore.StoredTokens, OAuthError> =>
  Effect.gen(function*() {
    const idp = {
      issuer: assertion.idpIssuer ?? new URL(assertion.idpTokenEndpoint).origin,
      token_endpoint: assertion.idpTokenEndpoint
    }
    const exchanged = yield* TokenRequest.requestAs(Documents.ExchangeAnswer, execute, "token-exchange", idp, {
      clientId: assertion.idpClientId,
      clientSecret: assertion.idpClientSecret,
      method: assertion.idpClientSecret === undefined ? "none" : "client_secret_basic"
    }, {
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: idJagType,
      subject_token: assertion.idToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: discovered.issuer,
      resource: discovered.resource,
      scope
    }, limits)
    if (exchanged.issued_token_type !== idJagType) {
      return yield* new AuthorizationRefused({
        reason: `${idp.issuer} issued a ${exchanged.issued_token_type.slice(0, 100)}, not an ID-JAG`
      })
    }
    const supported = discovered.server.token_endpoint_auth_methods_supported
    const answer = yield* TokenRequest.request(execute, "token", discovered.server, {
      clientId: assertion.clientId,
      clientSecret: assertion.clientSecret,
      method: TokenRequest.pickMethod(supported, assertion.clientSecret !== undefined)
    }, {
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: exchanged.access_token,
      resource: discovered.resource,
      scope
    }, limits)
    return keep(answer, discovered, assertion.clientId, scope)
  })
