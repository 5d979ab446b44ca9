/**
 * The documents an OAuth client reads, as Schemas: protected resource metadata (RFC 9728), authorization server
 * metadata (RFC 8414 and OpenID Connect discovery), a client registration answer (RFC 7591), a token answer and an
 * error answer (RFC 6749 §5). Each decodes only the members the client uses and ignores the rest; a document that
 * does not decode is an `AuthServerError` naming its URL and the member at fault.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AuthServerError, type Stage } from "../OAuthError.js"

const Url = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { message: () => "an http(s) URL" })
)
const Strings = Schema.Array(Schema.String)

/** Protected resource metadata (RFC 9728 §2). */
export const ResourceMetadata = Schema.Struct({
  resource: Schema.String,
  authorization_servers: Schema.optional(Schema.Array(Url)),
  scopes_supported: Schema.optional(Strings)
})

/** Protected resource metadata (RFC 9728 §2). */
export type ResourceMetadata = typeof ResourceMetadata.Type

/** Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery §3). */
export const ServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.optional(Url),
  token_endpoint: Url,
  registration_endpoint: Schema.optional(Url),
  scopes_supported: Schema.optional(Strings),
  grant_types_supported: Schema.optional(Strings),
  code_challenge_methods_supported: Schema.optional(Strings),
  token_endpoint_auth_methods_supported: Schema.optional(Strings),
  authorization_response_iss_parameter_supported: Schema.optional(Schema.Boolean),
  client_id_metadata_document_supported: Schema.optional(Schema.Boolean)
})

/** Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery §3). */
export type ServerMetadata = typeof ServerMetadata.Type

/** A client registration answer (RFC 7591 §3.2.1). */
export const Registration = Schema.Struct({
  client_id: Schema.String.pipe(Schema.minLength(1)),
  client_secret: Schema.optional(Schema.String),
  client_secret_expires_at: Schema.optional(Schema.Number),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  redirect_uris: Schema.optional(Strings)
})

/** A client registration answer (RFC 7591 §3.2.1). */
export type Registration = typeof Registration.Type

/** A successful token answer (RFC 6749 §5.1). */
export const TokenAnswer = Schema.Struct({
  access_token: Schema.String.pipe(Schema.minLength(1)),
  token_type: Schema.String.pipe(
    Schema.filter((t) => t.toLowerCase() === "bearer", { message: () => "token_type Bearer" })
  ),
  expires_in: Schema.optional(Schema.Number.pipe(Schema.nonNegative())),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/** A successful token answer (RFC 6749 §5.1). */
export type TokenAnswer = typeof TokenAnswer.Type

/** A token exchange answer (RFC 8693 §2.2.1): the issued token and its type, whatever `token_type` says. */
export const ExchangeAnswer = Schema.Struct({
  access_token: Schema.String.pipe(Schema.minLength(1)),
  issued_token_type: Schema.String
})

/** An error answer (RFC 6749 §5.2). */
export const ErrorAnswer = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

/** Decodes a document, failing with what is wrong in it (never with its values: a token answer holds secrets). */
export const decode = <A, I>(schema: Schema.Schema<A, I>, stage: Stage, url: string) => {
  const run = Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })
  return (value: unknown): Effect.Effect<A, AuthServerError> =>
    run(value).pipe(
      Effect.mapError((error) =>
        new AuthServerError({
          stage,
          reason: `${url} answered a document that is not valid: ${
            ParseResult.ArrayFormatter.formatErrorSync(error).slice(0, 3).map((issue) =>
              `${issue.path.join(".") || "(root)"}: ${issue._tag === "Type" ? "wrong type" : issue._tag}`
            ).join("; ")
          }`
        })
      )
    )
}

/** Shortens what a server said to a length fit for an error message. */
export const clip = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : text.length > 200 ? `${text.slice(0, 200)}…` : text
