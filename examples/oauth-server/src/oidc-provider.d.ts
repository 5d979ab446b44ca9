/** The part of oidc-provider (which ships no types) that AuthServer.ts uses. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  /** The resource server a resource indicator names, as `getResourceServerInfo` describes it. */
  interface ResourceServer {
    readonly scope: string
    readonly audience?: string
    readonly accessTokenTTL?: number
    readonly accessTokenFormat?: "opaque" | "jwt"
    readonly jwt?: { readonly sign?: { readonly alg: string } }
  }

  /** A grant of scopes to a client by a user. */
  class Grant {
    constructor(init: { readonly accountId: string; readonly clientId: string })
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    save(): Promise<string>
    static find(id: string): Promise<Grant | undefined>
  }

  /** An OpenID Provider: a Koa application. */
  export default class Provider {
    readonly Grant: typeof Grant
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<{
      readonly uid: string
      readonly grantId?: string
      readonly params: Record<string, unknown>
    }>
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
    constructor(issuer: string, configuration: {
      readonly findAccount?: (ctx: unknown, sub: string) => { accountId: string; claims: () => Record<string, unknown> }
      readonly interactions?: { readonly url: (ctx: unknown, interaction: { readonly uid: string }) => string }
      readonly issueRefreshToken?: (
        ctx: unknown,
        client: { grantTypeAllowed(grant: string): boolean },
        code: unknown
      ) => boolean
      readonly clients?: ReadonlyArray<Record<string, unknown>>
      readonly jwks?: { readonly keys: ReadonlyArray<Record<string, unknown>> }
      readonly scopes?: ReadonlyArray<string>
      readonly ttl?: Record<
        string,
        number | ((ctx: unknown, token: unknown, client: { readonly clientId: string }) => number)
      >
      readonly features?: {
        readonly devInteractions?: { readonly enabled: boolean }
        readonly clientCredentials?: { readonly enabled: boolean }
        readonly registration?: { readonly enabled: boolean }
        readonly introspection?: { readonly enabled: boolean; readonly allowedPolicy?: () => boolean }
        readonly resourceIndicators?: {
          readonly enabled: boolean
          readonly defaultResource?: () => string | undefined
          readonly useGrantedResource?: () => boolean
          readonly getResourceServerInfo?: (
            ctx: unknown,
            resourceIndicator: string,
            client: { readonly clientId: string }
          ) => ResourceServer
        }
      }
    })
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}
