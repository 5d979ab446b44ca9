/**
 * Where an OAuth client keeps what it must not ask for twice: its client identity per authorization server (keyed by
 * issuer, never used with another) and its tokens per protected resource (with the issuer that granted them, so that
 * a refresh token only ever goes back to it). Two Layers: in memory, and a JSON file written with mode 0600 (through
 * a file beside it and a rename, so that a crash never leaves half a file).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { TokenStoreError } from "./OAuthError.js"

/** A client identity at one authorization server. */
export const StoredClient = Schema.Struct({
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecret: Schema.optional(Schema.String),
  /** `none`, `client_secret_basic` or `client_secret_post`. */
  tokenEndpointAuthMethod: Schema.String,
  /** The redirect URIs it was registered with (empty: not registered by us). */
  redirectUris: Schema.Array(Schema.String)
})

/** A client identity at one authorization server. */
export type StoredClient = typeof StoredClient.Type

/** The tokens for one protected resource. */
export const StoredTokens = Schema.Struct({
  resource: Schema.String,
  /** The authorization server that granted them. */
  issuer: Schema.String,
  /** The client they were granted to (a refresh is made as that client). */
  clientId: Schema.String,
  accessToken: Schema.String,
  refreshToken: Schema.optional(Schema.String),
  /** When the access token expires, in milliseconds since the epoch. */
  expiresAt: Schema.optional(Schema.Number),
  /** The scopes asked for when they were granted (space-separated). */
  scope: Schema.optional(Schema.String)
})

/** The tokens for one protected resource. */
export type StoredTokens = typeof StoredTokens.Type

/** Everything a store holds. */
export const Contents = Schema.Struct({
  clients: Schema.Record({ key: Schema.String, value: StoredClient }),
  tokens: Schema.Record({ key: Schema.String, value: StoredTokens })
})

/** Everything a store holds. */
export type Contents = typeof Contents.Type

/** The operations of a token store. */
export interface TokenStoreService {
  /** The client identity kept for an issuer. */
  readonly client: (issuer: string) => Effect.Effect<StoredClient | undefined, TokenStoreError>
  /** Keeps a client identity (replacing the issuer's previous one). */
  readonly saveClient: (client: StoredClient) => Effect.Effect<void, TokenStoreError>
  /** The tokens kept for a resource. */
  readonly tokens: (resource: string) => Effect.Effect<StoredTokens | undefined, TokenStoreError>
  /** Keeps a resource's tokens. */
  readonly saveTokens: (tokens: StoredTokens) => Effect.Effect<void, TokenStoreError>
  /** Forgets a resource's tokens (logout); `undefined` forgets everything, client identities included. */
  readonly forget: (resource: string | undefined) => Effect.Effect<void, TokenStoreError>
}

/** The token store an OAuth client uses. */
export class TokenStore extends Context.Tag("@effect-mcp/auth/TokenStore")<TokenStore, TokenStoreService>() {}

const empty: Contents = { clients: {}, tokens: {} }

/** A store over a read and a write of its whole contents, serialized so that no update is lost. */
export const makeWith = (
  read: Effect.Effect<Contents, TokenStoreError>,
  write: (contents: Contents) => Effect.Effect<void, TokenStoreError>
): Effect.Effect<TokenStoreService> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    const update = (f: (contents: Contents) => Contents) =>
      lock.withPermits(1)(Effect.flatMap(read, (contents) => write(f(contents))))
    return {
      client: (issuer) => Effect.map(read, (c) => c.clients[issuer]),
      saveClient: (client) => update((c) => ({ ...c, clients: { ...c.clients, [client.issuer]: client } })),
      tokens: (resource) => Effect.map(read, (c) => c.tokens[resource]),
      saveTokens: (tokens) => update((c) => ({ ...c, tokens: { ...c.tokens, [tokens.resource]: tokens } })),
      forget: (resource) =>
        update((c) =>
          resource === undefined
            ? empty
            : { ...c, tokens: Object.fromEntries(Object.entries(c.tokens).filter(([key]) => key !== resource)) }
        )
    }
  })

/** A store that lives as long as the process. */
export const makeMemory: Effect.Effect<TokenStoreService> = Effect.flatMap(
  Ref.make(empty),
  (ref) => makeWith(Ref.get(ref), (contents) => Ref.set(ref, contents))
)

/** A store in memory. */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)

const decodeContents = Schema.decodeUnknown(Schema.parseJson(Contents))
const encodeContents = Schema.encode(Schema.parseJson(Contents, { space: 2 }))

/**
 * A store in a JSON file, created (with its directory) on the first write, readable and writable by its owner only
 * (mode 0600; the directory 0700). A file that does not decode is an error, never silently replaced.
 */
export const makeFile = (path: string): Effect.Effect<TokenStoreService> => {
  const failed = (what: string) => (cause: unknown) =>
    new TokenStoreError({
      reason: `${what} ${path}${cause instanceof Error && "code" in cause ? ` (${String(cause.code)})` : ""}`
    })
  const read = Effect.tryPromise({
    try: () =>
      readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => e.code === "ENOENT" ? undefined : Promise.reject(e)),
    catch: failed("cannot read")
  }).pipe(
    Effect.flatMap((text) =>
      text === undefined
        ? Effect.succeed(empty)
        : Effect.mapError(decodeContents(text), () => new TokenStoreError({ reason: `${path} is not a token store` }))
    )
  )
  const write = (contents: Contents) =>
    Effect.flatMap(
      Effect.orDie(encodeContents(contents)),
      (text) =>
        Effect.tryPromise({
          try: async () => {
            await mkdir(dirname(path), { recursive: true, mode: 0o700 })
            const next = `${path}.${randomBytes(6).toString("hex")}.tmp`
            await writeFile(next, text, { mode: 0o600 })
            await chmod(next, 0o600)
            await rename(next, path)
          },
          catch: failed("cannot write")
        })
    )
  return makeWith(read, write)
}

/** A store in a JSON file (see `makeFile`). */
export const layerFile = (path: string): Layer.Layer<TokenStore> => Layer.effect(TokenStore, makeFile(path))
