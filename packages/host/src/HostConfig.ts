/**
 * HostConfig: which servers a host runs, in the format desktop MCP clients keep
 * (`{"mcpServers": {name: {command, args, env, cwd} | {url, headers, auth}}}`), decoded with a Schema whose
 * errors name the bad field.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** A server started as a child process and spoken to over its stdio. */
export const StdioServer = Schema.Struct({
  command: Schema.NonEmptyString,
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String)
})

/** A server started as a child process and spoken to over its stdio. */
export type StdioServer = typeof StdioServer.Type

const httpUrl = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), {
    message: () => "an http:// or https:// URL"
  })
)

/**
 * How the host logs in to a server that asks for OAuth (carried out by whoever runs the host: see
 * `McpHost.Options.httpExchange`; the `effect-mcp host` command does it with @effect-mcp/auth).
 */
export const HttpAuth = Schema.Struct({
  /** A pre-registered client id (default: a Client ID Metadata Document URL or dynamic registration). */
  clientId: Schema.optional(Schema.NonEmptyString),
  /** Its secret, if it has one. */
  clientSecret: Schema.optional(Schema.String),
  /** The URL of the client's metadata document, its client id where the server supports them. */
  clientMetadataUrl: Schema.optional(httpUrl),
  /** The scopes to ask for (default: what the server's challenge or metadata names). */
  scopes: Schema.optional(Schema.Array(Schema.NonEmptyString)),
  /** `client_credentials`: a machine login with the client id and secret, no user (default: the user logs in). */
  grant: Schema.optional(Schema.Literal("authorization_code", "client_credentials"))
})

/** How the host logs in to a server that asks for OAuth. */
export type HttpAuth = typeof HttpAuth.Type

/** A server reached over Streamable HTTP (or the legacy HTTP+SSE transport it falls back to). */
export const HttpServer = Schema.Struct({
  url: httpUrl,
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  auth: Schema.optional(HttpAuth)
})

/** A server reached over Streamable HTTP (or the legacy HTTP+SSE transport it falls back to). */
export type HttpServer = typeof HttpServer.Type

/** How to reach one server: a command to run, or a URL. */
export const ServerConfig = Schema.Union(StdioServer, HttpServer)

/** How to reach one server: a command to run, or a URL. */
export type ServerConfig = typeof ServerConfig.Type

/** Whether a server is started by a command (else it is reached by URL). */
export const isStdio = (server: ServerConfig): server is StdioServer => "command" in server

const serverName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]+$/, { message: () => "a server name of letters, digits, `_` and `-`" })
)

/** A host's configuration file. */
export const HostConfig = Schema.Struct({
  mcpServers: Schema.Record({ key: serverName, value: ServerConfig })
})

/** A host's configuration file. */
export type HostConfig = typeof HostConfig.Type

/** The configuration could not be read or is invalid; `message` names the bad field. */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly message: string
  readonly path?: string
}> {}

const describe = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey>): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => {
      const path = [...prefix, ...issue.path]
      return `${path.length === 0 ? "(root)" : path.map(String).join(".")}: ${issue.message}`
    })
    .join("; ")

const Outline = Schema.Struct({
  mcpServers: Schema.Record({ key: serverName, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

const decodeOutline = Schema.decodeUnknownEither(Outline, { errors: "all" })
const decodeStdio = Schema.decodeUnknownEither(StdioServer, { errors: "all", onExcessProperty: "ignore" })
const decodeHttp = Schema.decodeUnknownEither(HttpServer, { errors: "all", onExcessProperty: "ignore" })

const invalid = (detail: string) => new ConfigError({ message: `invalid host configuration: ${detail}` })

/** Decodes a configuration value (parsed JSON); each server is read as `command` or `url` by the key it has. */
export const decode = (u: unknown): Either.Either<HostConfig, ConfigError> => {
  const outline = decodeOutline(u)
  if (Either.isLeft(outline)) return Either.left(invalid(describe(outline.left, [])))
  const servers: Record<string, ServerConfig> = {}
  for (const [name, entry] of Object.entries(outline.right.mcpServers)) {
    const at = ["mcpServers", name]
    if ("command" in entry === "url" in entry) {
      return Either.left(invalid(`${at.join(".")}: needs either \`command\` (a stdio server) or \`url\``))
    }
    const decoded: Either.Either<ServerConfig, ParseResult.ParseError> = "command" in entry
      ? decodeStdio(entry)
      : decodeHttp(entry)
    if (Either.isLeft(decoded)) return Either.left(invalid(describe(decoded.left, at)))
    servers[name] = decoded.right
  }
  return Either.right({ mcpServers: servers })
}

/** Parses and decodes a configuration file's text. */
export const parse = (text: string): Either.Either<HostConfig, ConfigError> =>
  Either.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new ConfigError({ message: `the host configuration is not JSON: ${(e as Error).message}` })
  }).pipe(Either.flatMap(decode))

/** Reads, parses and decodes a configuration file. */
export const load = (path: string): Effect.Effect<HostConfig, ConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
    Effect.mapError((e) => new ConfigError({ message: `cannot read ${path}: ${e.message}`, path })),
    Effect.flatMap((text) =>
      Either.mapLeft(parse(text), (e) => new ConfigError({ message: `${path}: ${e.message}`, path }))
    )
  )
