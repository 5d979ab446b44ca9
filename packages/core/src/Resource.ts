/**
 * Resources and resource templates. A resource has a fixed URI; a template has an RFC 6570 URI
 * template whose variables are decoded with an Effect Schema, can be completed, and can enumerate
 * its instances for `resources/list`.
 */
import { Codec, type Mcp, McpError } from "@effect-mcp/schema"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { runHandler } from "./internal/handlerContext.js"
import * as RequiredScopes from "./internal/requiredScopes.js"
import * as TypedFailure from "./internal/typedFailure.js"
import * as UriTemplate from "./internal/uriTemplate.js"
import type { RequestContext, RequestContextService } from "./RequestContext.js"
import type { Protected } from "./Tool.js"

/** What a read may return: text, bytes, or the contents themselves. */
export type ResourceBody = string | Uint8Array | ReadonlyArray<Mcp.TextResourceContents | Mcp.BlobResourceContents>

/** The descriptor fields of a resource. */
export interface ResourceInfo {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
  readonly annotations?: Mcp.Annotations
  readonly icons?: ReadonlyArray<Mcp.Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** How long a 2026-07-28 client may cache a read of this resource, and whether the cache may be shared. */
export interface CacheHints {
  /** Milliseconds the result stays fresh (default: the server's). */
  readonly ttlMs?: number
  /** `private` (one user's) or `public` (shareable) (default: the server's). */
  readonly scope?: "private" | "public"
}

/** A resource definition (`scopes`: what a read requires, see `Tool.Protected`). */
export interface Definition<R> extends ResourceInfo, Protected {
  readonly read: Effect.Effect<ResourceBody, McpError.McpError, R>
  /** Cache hints of this resource's reads under 2026-07-28 (default: the server's `cache` option). */
  readonly cache?: CacheHints
}

/** Completes one template variable from what the user typed so far. */
export type Completer<R> = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>> }
) => Effect.Effect<ReadonlyArray<string>, McpError.McpError, R>

/**
 * A resource template definition; `input` decodes the URI's variables, `handler` reads the resource they name
 * (`scopes`: see `Tool.Protected`). A failure
 * the `failure` schema declares is sent as a JSON-RPC error carrying the encoded value (as a prompt's).
 */
export interface TemplateDefinition<
  P,
  R,
  I extends Readonly<Record<string, string | undefined>> = Readonly<Record<string, string>>,
  F = never,
  FI = never
> extends Protected {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly annotations?: Mcp.Annotations
  readonly icons?: ReadonlyArray<Mcp.Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
  readonly input?: Schema.Schema<P, I, never>
  readonly complete?: Readonly<Record<string, Completer<R>>>
  readonly list?: Effect.Effect<ReadonlyArray<Mcp.Resource>, McpError.McpError, R>
  /** The typed failure of a read, besides McpError. */
  readonly failure?: Schema.Schema<F, FI, never>
  readonly handler: (input: P, uri: string) => Effect.Effect<ResourceBody, F | McpError.McpError, R>
  /** Cache hints of reads of this template's resources under 2026-07-28 (default: the server's `cache` option). */
  readonly cache?: CacheHints
}

/** A resource ready to be registered. */
export interface Resource {
  readonly descriptor: Mcp.Resource
  readonly read: (context: RequestContextService) => Effect.Effect<Mcp.ReadResourceResult, McpError.McpError>
  /** The scopes a reader's token must grant. */
  readonly scopes?: ReadonlyArray<string>
}

/** A template ready to be registered. */
export interface Template {
  readonly descriptor: Mcp.ResourceTemplate
  readonly template: UriTemplate.UriTemplate
  readonly list:
    | ((context: RequestContextService) => Effect.Effect<ReadonlyArray<Mcp.Resource>, McpError.McpError>)
    | undefined
  readonly complete: (
    variable: string,
    value: string,
    args: Readonly<Record<string, string>>,
    context: RequestContextService
  ) => Effect.Effect<ReadonlyArray<string>, McpError.McpError>
  /** Reads `uri` if it matches the template. */
  readonly read: (
    uri: string,
    context: RequestContextService
  ) => Effect.Effect<Mcp.ReadResourceResult, McpError.McpError> | undefined
  /** The scopes a reader's token must grant. */
  readonly scopes?: ReadonlyArray<string>
}

/** The read result for a body (with the definition's cache hints, which only 2026-07-28 encodes). */
export const toResult = (
  uri: string,
  mimeType: string | undefined,
  body: ResourceBody,
  cache?: CacheHints
): Mcp.ReadResourceResult => {
  const mime = mimeType === undefined ? {} : { mimeType }
  const hints = {
    ...(cache?.ttlMs === undefined ? {} : { ttlMs: cache.ttlMs }),
    ...(cache?.scope === undefined ? {} : { cacheScope: cache.scope })
  }
  if (typeof body === "string") return { contents: [{ uri, ...mime, text: body }], ...hints }
  if (body instanceof Uint8Array) {
    return { contents: [{ uri, ...mime, blob: Encoding.encodeBase64(body) }], ...hints }
  }
  return { contents: body, ...hints }
}

const run = <A, R>(
  effect: Effect.Effect<A, McpError.McpError, R>,
  context: Context.Context<Exclude<R, RequestContext>>,
  ctx: RequestContextService
) => runHandler(effect, context, ctx)

/** Turns a definition into a resource. */
export const make = <R>(def: Definition<R>, context: Context.Context<Exclude<R, RequestContext>>): Resource => {
  const { cache, read, scopes, ...descriptor } = def
  return {
    descriptor,
    read: (ctx) => {
      const refusal = RequiredScopes.refused(scopes, `the resource ${def.uri}`, ctx.auth)
      if (refusal !== undefined) return Effect.fail(refusal)
      return Effect.map(run(read, context, ctx), (body) => toResult(def.uri, def.mimeType, body, cache))
    },
    ...(scopes === undefined ? {} : { scopes })
  }
}

/** Turns a template definition into a template. */
export const makeTemplate = <P, R, I extends Readonly<Record<string, string | undefined>>, F = never, FI = never>(
  def: TemplateDefinition<P, R, I, F, FI>,
  context: Context.Context<Exclude<R, RequestContext>>
): Template => {
  const { cache, complete, failure, handler, input, list, scopes, ...descriptor } = def
  const template = UriTemplate.make(def.uriTemplate)
  const decode = input === undefined
    ? (vars: Record<string, string>) => Effect.succeed(vars as P)
    : Schema.decodeUnknown(input)
  return {
    descriptor,
    template,
    list: list === undefined ? undefined : (ctx) => run(list, context, ctx),
    complete: (variable, value, args, ctx) => {
      const completer = complete?.[variable]
      return completer === undefined ? Effect.succeed([]) : run(completer(value, { arguments: args }), context, ctx)
    },
    ...(scopes === undefined ? {} : { scopes }),
    read: (uri, ctx) => {
      const vars = template.match(uri)
      if (vars === undefined) return undefined
      const refusal = RequiredScopes.refused(scopes, `the resource ${McpError.quote(uri)}`, ctx.auth)
      if (refusal !== undefined) return Effect.fail(refusal)
      return decode(vars).pipe(
        Effect.mapError((e) =>
          e instanceof ParseResult.ParseError
            ? new McpError.ResourceNotFound({
              message: `Resource not found: ${McpError.quote(uri)} (${Codec.describe(e)})`,
              uri
            })
            : e
        ),
        Effect.flatMap((p) => runHandler(handler(p, uri), context, ctx)),
        Effect.catchIf(
          (e): e is F => !McpError.isMcpError(e),
          (e) => TypedFailure.fail(failure, e, `resource template ${def.uriTemplate}`)
        ),
        Effect.map((body) => toResult(uri, def.mimeType, body, cache))
      )
    }
  }
}
