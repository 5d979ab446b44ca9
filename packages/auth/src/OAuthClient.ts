/**
 * An OAuth client for the Streamable HTTP transport, as middleware over its exchange function
 * (`McpHttpClient.Execute`): every request the transport makes (POST, the GET stream, DELETE, the legacy transport's
 * requests) carries `Authorization: Bearer` to the MCP server's origin, and a 401 (with its `WWW-Authenticate`) or a
 * 403 `insufficient_scope` is answered by discovery, a refresh, a login (the authorization code flow through the
 * `InteractiveStep`), the client-credentials grant, or a step-up to more scopes, after which the request is sent
 * once more, unseen by the caller. Tokens and client identities are kept in the `TokenStore`.
 */
import { Transport } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { InteractiveStep } from "./InteractiveStep.js"
import * as Challenge from "./internal/challenge.js"
import * as Discovery from "./internal/discovery.js"
import * as Exchange from "./internal/exchange.js"
import * as Flow from "./internal/flow.js"
import type * as Identity from "./internal/identity.js"
import type * as TokenRequest from "./internal/tokenRequest.js"
import type { OAuthError } from "./OAuthError.js"
import { type StoredTokens, TokenStore } from "./TokenStore.js"

/** A client registered out of band with an authorization server. */
export type PreRegistered = Identity.PreRegistered

/** A machine client's credentials (client-credentials grant: a secret, or a signing key for private_key_jwt). */
export type ClientCredentials = Flow.ClientCredentials

/** Enterprise-managed authorization (SEP-990): the user's ID token exchanged at the identity provider for a grant. */
export type IdentityAssertion = Flow.IdentityAssertion

/** A private key that signs client assertions (private_key_jwt). */
export type SigningKey = TokenRequest.SigningKey

/** How the OAuth client behaves. */
export interface Options {
  /** `client_name` in dynamic registrations (default `effect-mcp`). */
  readonly clientName?: string
  /** The URL of this client's Client ID Metadata Document: its client id where the server supports them. */
  readonly clientMetadataUrl?: string
  /** A pre-registered client (used before CIMD and dynamic registration). */
  readonly client?: PreRegistered
  /** Makes this a machine client: the client-credentials grant instead of a user's login. */
  readonly clientCredentials?: ClientCredentials
  /** Makes this an enterprise-managed client: the identity provider's grant instead of a login (SEP-990). */
  readonly identityAssertion?: IdentityAssertion
  /** The scopes to ask for (default: the challenge's, else the resource metadata's `scopes_supported`, else none). */
  readonly scopes?: ReadonlyArray<string>
  /** Whether to ask for `offline_access` (a refresh token) where the server lists it (default true). */
  readonly offlineAccess?: boolean
  /** How many times one connection steps up its scopes on 403 `insufficient_scope` (default 2). */
  readonly maxStepUps?: number
  /** How long before its expiry an access token is refreshed, in milliseconds (default 30 s). */
  readonly refreshMarginMs?: number
  /** RFC 7591 `application_type` of registrations (default `native`). */
  readonly applicationType?: "native" | "web"
  /** Milliseconds before a request to an authorization server is abandoned (default 10 s). */
  readonly timeoutMs?: number
  /** The largest answer read from an authorization server, in bytes (default 256 KiB). */
  readonly maxResponseBytes?: number
}

/** What one wrapped exchange function knows: the resource's origin, its authorization server, its tokens. */
interface State {
  origin: string | undefined
  discovered: Discovery.Discovered | undefined
  tokens: StoredTokens | undefined
  loaded: boolean
  stepUps: number
}

const bearer = (request: McpHttpClient.OutgoingRequest, token: string | undefined): McpHttpClient.OutgoingRequest =>
  token === undefined ? request : { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } }

/**
 * Wraps an exchange function with OAuth. The failure of a flow is not the request's: the request then answers what
 * the server answered (401 or 403), which the transport turns into `Unauthorized` or `Forbidden`; the flow's own
 * typed failure is logged (never with a secret) and handed to `onFailure` when given.
 */
export const wrap = (
  execute: McpHttpClient.Execute,
  options: Options = {},
  onFailure?: (error: OAuthError) => Effect.Effect<void>
): Effect.Effect<McpHttpClient.Execute, never, TokenStore | InteractiveStep> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const step = yield* InteractiveStep
    const lock = yield* Effect.makeSemaphore(1)
    const state = yield* Ref.make<State>({
      origin: undefined,
      discovered: undefined,
      tokens: undefined,
      loaded: false,
      stepUps: 0
    })
    const limits: Exchange.Limits = {
      timeoutMs: options.timeoutMs ?? Exchange.defaultLimits.timeoutMs,
      maxBytes: options.maxResponseBytes ?? Exchange.defaultLimits.maxBytes
    }
    const description: Identity.ClientDescription = {
      clientName: options.clientName ?? "effect-mcp",
      metadataUrl: options.clientMetadataUrl,
      preRegistered: options.client,
      applicationType: options.applicationType
    }
    const margin = options.refreshMarginMs ?? 30_000
    const expired = (tokens: { readonly expiresAt?: number | undefined }) =>
      tokens.expiresAt !== undefined && tokens.expiresAt - margin <= Date.now()

    const update = (f: (s: State) => Partial<State>) => Ref.update(state, (s) => ({ ...s, ...f(s) }))
    const save = (tokens: StoredTokens) => Effect.zipRight(store.saveTokens(tokens), update(() => ({ tokens })))

    const discover = (endpoint: URL, hint: string | undefined) =>
      Effect.flatMap(Ref.get(state), (s) =>
        s.discovered !== undefined
          ? Effect.succeed(s.discovered)
          : Effect.tap(
            Discovery.discover(execute, endpoint, hint, limits),
            (discovered) => update(() => ({ discovered }))
          ))

    /** The scope of a new grant: the challenge's (with what was held before, on a step-up), else the resource's. */
    const scopeFor = (discovered: Discovery.Discovered, challenged: string | undefined, held: string | undefined) => {
      const base = options.scopes ?? (challenged !== undefined
        ? [...Flow.scopes(held), ...Flow.scopes(challenged)]
        : discovered.resourceScopes ?? [])
      const offline = options.clientCredentials === undefined && options.identityAssertion === undefined &&
          options.offlineAccess !== false &&
          (discovered.server.scopes_supported ?? []).includes("offline_access")
        ? ["offline_access"]
        : []
      return Flow.joinScopes(base, offline)
    }

    /** A new grant for `scope`: the client-credentials grant, the enterprise-managed grant, or a login. */
    const grant = (discovered: Discovery.Discovered, scope: string | undefined) =>
      options.clientCredentials !== undefined
        ? Flow.clientCredentials(execute, discovered, options.clientCredentials, scope, limits)
        : options.identityAssertion !== undefined
        ? Flow.identityAssertion(execute, discovered, options.identityAssertion, scope, limits)
        : Flow.authorizationCode(execute, store, step, discovered, scope, description, limits)

    /** After a 401: the kept tokens if newer, else a refresh, else a new grant. */
    const recover = (endpoint: URL, challenge: Challenge.BearerChallenge | undefined, sent: string | undefined) =>
      Effect.gen(function*() {
        const discovered = yield* discover(endpoint, challenge?.resourceMetadata)
        const kept = yield* store.tokens(discovered.resource)
        if (kept !== undefined && kept.accessToken !== sent && kept.issuer === discovered.issuer && !expired(kept)) {
          return yield* update(() => ({ tokens: kept }))
        }
        const current = (yield* Ref.get(state)).tokens ?? kept
        if (current !== undefined && current.refreshToken !== undefined) {
          const refreshed = yield* Effect.either(Flow.refresh(execute, store, discovered, current, description, limits))
          if (refreshed._tag === "Right" && refreshed.right !== undefined) return yield* save(refreshed.right)
        }
        return yield* save(yield* grant(discovered, scopeFor(discovered, challenge?.scope, undefined)))
      })

    /** After a 403 insufficient_scope: a grant for the held scopes and the challenged ones, within the limit. */
    const stepUp = (endpoint: URL, challenge: Challenge.BearerChallenge) =>
      Effect.gen(function*() {
        const s = yield* Ref.get(state)
        const held = s.tokens?.scope
        const wanted = Flow.scopes(challenge.scope)
        const fresh = wanted.filter((scope) => !Flow.scopes(held).includes(scope))
        if (fresh.length === 0 || s.stepUps >= (options.maxStepUps ?? 2)) return false
        yield* update((s) => ({ stepUps: s.stepUps + 1 }))
        const discovered = yield* discover(endpoint, challenge.resourceMetadata)
        yield* save(yield* grant(discovered, scopeFor(discovered, challenge.scope, held)))
        return true
      })

    const reported = (error: OAuthError) =>
      Effect.zipRight(
        Effect.logWarning(`effect-mcp: ${error.message}`),
        onFailure === undefined ? Effect.void : onFailure(error)
      )

    /** The access token for a request to `url`: only to the MCP server's origin, refreshed when it is about to expire. */
    const tokenFor = (url: URL) =>
      Effect.gen(function*() {
        const s = yield* Ref.get(state)
        if (s.origin === undefined) yield* update(() => ({ origin: url.origin }))
        else if (s.origin !== url.origin) return undefined
        if (!s.loaded) {
          const kept = yield* Effect.orElseSucceed(store.tokens(Discovery.canonicalResource(url)), () => undefined)
          yield* update(() => ({ loaded: true, ...(kept === undefined ? {} : { tokens: kept }) }))
        }
        const tokens = (yield* Ref.get(state)).tokens
        if (tokens !== undefined && expired(tokens) && tokens.refreshToken !== undefined) {
          yield* lock.withPermits(1)(
            Effect.gen(function*() {
              const now = yield* Ref.get(state)
              if (now.tokens !== tokens || now.discovered === undefined) return
              const refreshed = yield* Effect.either(
                Flow.refresh(execute, store, now.discovered, tokens, description, limits)
              )
              if (refreshed._tag === "Right" && refreshed.right !== undefined) yield* save(refreshed.right)
            }).pipe(Effect.catchAll(reported))
          )
        }
        return (yield* Ref.get(state)).tokens?.accessToken
      })

    return (request: McpHttpClient.OutgoingRequest) =>
      Effect.gen(function*() {
        const url = new URL(request.url)
        const sent = yield* tokenFor(url)
        const response = yield* execute(bearer(request, sent))
        if (response.status !== 401 && response.status !== 403) return response
        const s = yield* Ref.get(state)
        if (s.origin !== url.origin) return response
        const challenge = Challenge.parse(response.headers["www-authenticate"])
        if (response.status === 403 && challenge?.error !== "insufficient_scope") return response
        const retry = yield* lock.withPermits(1)(
          Effect.gen(function*() {
            // Another request may have renewed the token while this one waited.
            const now = (yield* Ref.get(state)).tokens?.accessToken
            if (now !== undefined && now !== sent) return true
            if (response.status === 401 || challenge === undefined) {
              yield* recover(url, challenge, sent)
              return true
            }
            return yield* stepUp(url, challenge)
          }).pipe(Effect.catchAll((error) => Effect.as(reported(error), false)))
        )
        if (!retry) return response
        return yield* execute(bearer(request, (yield* Ref.get(state)).tokens?.accessToken))
      })
  })

/**
 * The Streamable HTTP client transport on node:http with OAuth (see `wrap`); it lives until the scope closes.
 */
export const makeNodeHttp = (
  transport: McpHttpClient.Options,
  options: Options = {}
): Effect.Effect<Transport.TransportService, never, TokenStore | InteractiveStep | Scope.Scope> =>
  Effect.gen(function*() {
    const pools = yield* McpNodeHttpClient.agents
    const execute = yield* wrap(McpNodeHttpClient.execute(pools), options)
    return yield* McpHttpClient.makeWith(transport, execute)
  })

/** The Streamable HTTP client transport on node:http with OAuth, as a Layer. */
export const layerNodeHttp = (
  transport: McpHttpClient.Options,
  options: Options = {}
): Layer.Layer<Transport.Transport, never, TokenStore | InteractiveStep> =>
  Layer.scoped(Transport.Transport, makeNodeHttp(transport, options))
