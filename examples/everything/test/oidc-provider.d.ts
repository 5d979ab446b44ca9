/** The part of oidc-provider (which ships no types) that authServer.ts uses. */
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

  /** An OpenID Provider: a Koa application. */
  export default class Provider {
    constructor(issuer: string, configuration: {
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
