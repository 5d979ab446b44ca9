/**
 * Which client the flow is at an authorization server, in the MCP specification's order: a client already kept for
 * that issuer (and registered for this redirect URI), a pre-registered client, a Client ID Metadata Document URL when
 * the server supports them, or Dynamic Client Registration (RFC 7591). A registered client is kept under its issuer
 * only, and never presented to another authorization server.
 */
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import { AuthorizationRefused, AuthServerError, OAuthErrorResponse, type TokenStoreError } from "../OAuthError.js"
import type * as TokenStore from "../TokenStore.js"
import type * as Discovery from "./discovery.js"
import * as Documents from "./documents.js"
import * as Exchange from "./exchange.js"
import * as TokenRequest from "./tokenRequest.js"

/** A client registered out of band. */
export interface PreRegistered {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** How it authenticates at the token endpoint (default: picked from the server's metadata). */
  readonly tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post" | undefined
  /** The issuer it is registered with (default: any; then it is presented to whichever server the resource names). */
  readonly issuer?: string | undefined
}

/** What the client says about itself. */
export interface ClientDescription {
  /** `client_name` in registrations. */
  readonly clientName: string
  /** The URL of its Client ID Metadata Document, used as its client id where the server supports them. */
  readonly metadataUrl?: string | undefined
  /** A pre-registered client. */
  readonly preRegistered?: PreRegistered | undefined
  /** RFC 7591 `application_type` (default `native`: the redirect is on the loopback interface). */
  readonly applicationType?: "native" | "web" | undefined
}

/** How a kept (registered) client authenticates at the token endpoint. */
export const registered = (client: TokenStore.StoredClient): TokenRequest.ClientAuth => ({
  clientId: client.clientId,
  clientSecret: client.clientSecret,
  method:
    client.tokenEndpointAuthMethod === "client_secret_basic" || client.tokenEndpointAuthMethod === "client_secret_post"
      ? client.tokenEndpointAuthMethod
      : "none"
})

/** How a pre-registered client authenticates: its own method, else the best the server supports. */
export const preRegisteredAuth = (
  pre: PreRegistered,
  discovered: Discovery.Discovered
): TokenRequest.ClientAuth => ({
  clientId: pre.clientId,
  clientSecret: pre.clientSecret,
  method: pre.tokenEndpointAuthMethod ??
    TokenRequest.pickMethod(discovered.server.token_endpoint_auth_methods_supported, pre.clientSecret !== undefined)
})

/** Registers a client (RFC 7591) for `redirectUri`, keeping it under the issuer. */
const register = (
  execute: McpHttpClient.Execute,
  store: TokenStore.TokenStoreService,
  discovered: Discovery.Discovered,
  endpoint: string,
  redirectUri: string,
  description: ClientDescription,
  limits: Exchange.Limits
) =>
  Effect.gen(function*() {
    const supported = discovered.server.token_endpoint_auth_methods_supported
    const method = supported === undefined || supported.includes("none")
      ? "none"
      : TokenRequest.pickMethod(supported, true)
    const answer = yield* Exchange.postJson(execute, "registration", endpoint, {
      client_name: description.clientName,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: method,
      application_type: description.applicationType ?? "native"
    }, limits)
    const json = yield* Exchange.jsonObject(answer, "registration", endpoint)
    if (answer.status !== 200 && answer.status !== 201) {
      const error = yield* Effect.option(Documents.decode(Documents.ErrorAnswer, "registration", endpoint)(json))
      return yield* error._tag === "Some"
        ? new OAuthErrorResponse({
          stage: "registration",
          error: error.value.error.slice(0, 100),
          description: Documents.clip(error.value.error_description)
        })
        : new AuthServerError({ stage: "registration", reason: `${endpoint} answered HTTP ${answer.status}` })
    }
    const got = yield* Documents.decode(Documents.Registration, "registration", endpoint)(json)
    const client: TokenStore.StoredClient = {
      issuer: discovered.issuer,
      clientId: got.client_id,
      ...(got.client_secret === undefined ? {} : { clientSecret: got.client_secret }),
      tokenEndpointAuthMethod: got.token_endpoint_auth_method ??
        (got.client_secret === undefined ? "none" : TokenRequest.pickMethod(supported, true)),
      redirectUris: got.redirect_uris ?? [redirectUri]
    }
    yield* store.saveClient(client)
    return registered(client)
  })

/** The client identity to use at the discovered server for an authorization with `redirectUri`. */
export const resolve = (
  execute: McpHttpClient.Execute,
  store: TokenStore.TokenStoreService,
  discovered: Discovery.Discovered,
  redirectUri: string,
  description: ClientDescription,
  limits: Exchange.Limits
): Effect.Effect<
  TokenRequest.ClientAuth,
  AuthServerError | OAuthErrorResponse | AuthorizationRefused | TokenStoreError
> =>
  Effect.gen(function*() {
    const kept = yield* store.client(discovered.issuer)
    if (kept !== undefined && kept.issuer === discovered.issuer && kept.redirectUris.includes(redirectUri)) {
      return registered(kept)
    }
    const pre = description.preRegistered
    if (pre !== undefined && (pre.issuer === undefined || pre.issuer === discovered.issuer)) {
      return preRegisteredAuth(pre, discovered)
    }
    if (description.metadataUrl !== undefined && discovered.server.client_id_metadata_document_supported === true) {
      return { clientId: description.metadataUrl, method: "none" }
    }
    const endpoint = discovered.server.registration_endpoint
    if (endpoint !== undefined) {
      return yield* register(execute, store, discovered, endpoint, redirectUri, description, limits)
    }
    return yield* new AuthorizationRefused({
      reason: `no client identity for ${discovered.issuer}: it supports neither Client ID Metadata Documents nor ` +
        "dynamic registration, and no client id is configured for it"
    })
  })
