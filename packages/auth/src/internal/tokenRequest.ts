/**
 * Requests to the token endpoint (RFC 6749 §3.2): the grant's form, the client's authentication (none,
 * client_secret_basic, client_secret_post, or private_key_jwt, RFC 7523 §2.2), and the answer decoded: the tokens, or
 * the server's OAuth error. The form and the answer hold secrets: no error ever carries them.
 */
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import * as jose from "jose"
import { AuthServerError, OAuthErrorResponse, type Stage } from "../OAuthError.js"
import * as Documents from "./documents.js"
import * as Exchange from "./exchange.js"
import { randomString } from "./pkce.js"

/** A private key that signs client assertions (private_key_jwt). */
export interface SigningKey {
  /** The key in PKCS#8 PEM. */
  readonly pem: string
  /** Its JWS algorithm (`ES256`, `RS256`, ...). */
  readonly algorithm: string
}

/** How the client authenticates at the token endpoint. */
export interface ClientAuth {
  readonly clientId: string
  readonly method: "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt"
  readonly clientSecret?: string | undefined
  readonly signingKey?: SigningKey | undefined
}

/** `application/x-www-form-urlencoded` of one value, as RFC 6749 §2.3.1 asks for the parts of Basic credentials. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+")

/** A client assertion (RFC 7523 §3): the client is its issuer and subject; the audience is the issuer (RFC 7523bis). */
const assertion = (auth: ClientAuth, key: SigningKey, audience: string, stage: Stage) =>
  Effect.tryPromise({
    try: async () => {
      const privateKey = await jose.importPKCS8(key.pem, key.algorithm)
      return await new jose.SignJWT({})
        .setProtectedHeader({ alg: key.algorithm })
        .setIssuer(auth.clientId)
        .setSubject(auth.clientId)
        .setAudience(audience)
        .setJti(randomString(16))
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey)
    },
    catch: () =>
      new AuthServerError({ stage, reason: `the signing key of ${auth.clientId} is not a ${key.algorithm} PKCS#8 key` })
  })

/** The form members and headers that authenticate the client. */
const authenticate = (
  auth: ClientAuth,
  issuer: string,
  stage: Stage
): Effect.Effect<
  { readonly form: Record<string, string>; readonly headers: Record<string, string> },
  AuthServerError
> => {
  switch (auth.method) {
    case "client_secret_basic":
      return Effect.succeed({
        form: {},
        headers: {
          authorization: `Basic ${
            Buffer.from(`${formEncode(auth.clientId)}:${formEncode(auth.clientSecret ?? "")}`).toString("base64")
          }`
        }
      })
    case "client_secret_post":
      return Effect.succeed({
        form: { client_id: auth.clientId, client_secret: auth.clientSecret ?? "" },
        headers: {}
      })
    case "private_key_jwt":
      return auth.signingKey === undefined
        ? Effect.fail(new AuthServerError({ stage, reason: `no signing key for ${auth.clientId}` }))
        : Effect.map(assertion(auth, auth.signingKey, issuer, stage), (jwt) => ({
          form: {
            client_id: auth.clientId,
            client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            client_assertion: jwt
          },
          headers: {}
        }))
    case "none":
      return Effect.succeed({ form: { client_id: auth.clientId }, headers: {} })
  }
}

/** Sends a grant to the token endpoint and decodes the answer with `schema`, or fails with the server's OAuth error. */
export const requestAs = <A, I>(
  schema: Schema.Schema<A, I>,
  execute: McpHttpClient.Execute,
  stage: Stage,
  server: { readonly issuer: string; readonly token_endpoint: string },
  auth: ClientAuth,
  grant: Readonly<Record<string, string | undefined>>,
  limits: Exchange.Limits
): Effect.Effect<A, AuthServerError | OAuthErrorResponse> =>
  Effect.gen(function*() {
    const url = server.token_endpoint
    const client = yield* authenticate(auth, server.issuer, stage)
    const answer = yield* Exchange.postForm(execute, stage, url, { ...grant, ...client.form }, client.headers, limits)
    const json = yield* Exchange.jsonObject(answer, stage, url)
    if (answer.status !== 200) {
      const error = yield* Effect.option(Documents.decode(Documents.ErrorAnswer, stage, url)(json))
      return yield* error._tag === "Some"
        ? new OAuthErrorResponse({
          stage,
          error: error.value.error.slice(0, 100),
          description: Documents.clip(error.value.error_description)
        })
        : new AuthServerError({ stage, reason: `${url} answered HTTP ${answer.status}` })
    }
    return yield* Documents.decode(schema, stage, url)(json)
  })

/** Sends a grant to the token endpoint and decodes the tokens, or fails with the server's OAuth error. */
export const request = (
  execute: McpHttpClient.Execute,
  stage: Stage,
  server: { readonly issuer: string; readonly token_endpoint: string },
  auth: ClientAuth,
  grant: Readonly<Record<string, string | undefined>>,
  limits: Exchange.Limits
): Effect.Effect<Documents.TokenAnswer, AuthServerError | OAuthErrorResponse> =>
  requestAs(Documents.TokenAnswer, execute, stage, server, auth, grant, limits)

/** Picks the token endpoint authentication a client with (or without) a secret uses at a server. */
export const pickMethod = (
  supported: ReadonlyArray<string> | undefined,
  hasSecret: boolean
): ClientAuth["method"] => {
  if (!hasSecret) return "none"
  // RFC 8414 §2: client_secret_basic when the server does not say.
  const methods = supported ?? ["client_secret_basic"]
  return methods.includes("client_secret_basic")
    ? "client_secret_basic"
    : methods.includes("client_secret_post")
    ? "client_secret_post"
    : "client_secret_basic"
}
