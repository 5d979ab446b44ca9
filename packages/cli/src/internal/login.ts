/**
 * The command's OAuth client (loaded lazily, see `loginSettings.ts`): `@effect-mcp/auth` over the file token store,
 * with the loopback interactive step (the URL printed on stderr, the redirect received on 127.0.0.1) or, for tests
 * and automation, the headless one; and what `login` and `logout` do to the store.
 */
import { InteractiveStep, OAuthClient, TokenStore } from "@effect-mcp/auth"
import type { HostConfig } from "@effect-mcp/host"
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import type { LoginSettings } from "./loginSettings.js"

/** The OAuth options of a host entry's auth settings. */
const optionsOf = (auth: HostConfig.HttpAuth | undefined): OAuthClient.Options => {
  const base: OAuthClient.Options = {
    clientName: "effect-mcp",
    ...(auth?.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: auth.clientMetadataUrl }),
    ...(auth?.scopes === undefined ? {} : { scopes: auth.scopes })
  }
  if (auth?.clientId === undefined) return base
  const client = { clientId: auth.clientId, clientSecret: auth.clientSecret }
  return auth.grant === "client_credentials" ? { ...base, clientCredentials: client } : { ...base, client }
}

/** The exchange function with OAuth, keeping its logins in the settings' file (`auth`: a host entry's settings). */
export const wrap = (
  execute: McpHttpClient.Execute,
  settings: LoginSettings,
  auth?: HostConfig.HttpAuth
): Effect.Effect<McpHttpClient.Execute> =>
  Effect.gen(function*() {
    const store = yield* TokenStore.makeFile(settings.file)
    const step = settings.headless
      ? InteractiveStep.makeHeadless(execute)
      : InteractiveStep.makeLoopback()
    return yield* OAuthClient.wrap(execute, optionsOf(auth)).pipe(
      Effect.provideService(TokenStore.TokenStore, store),
      Effect.provideService(InteractiveStep.InteractiveStep, step)
    )
  })

/** The canonical resource of an endpoint URL (no fragment, no query): the key of its tokens. */
export const resourceOf = (url: string): string => {
  const parsed = new URL(url)
  parsed.hash = ""
  parsed.search = ""
  return parsed.href
}

/** Forgets the tokens kept for `url`; whether there were any. */
export const forget = (url: string, settings: LoginSettings) =>
  Effect.gen(function*() {
    const store = yield* TokenStore.makeFile(settings.file)
    const kept = yield* store.tokens(resourceOf(url))
    if (kept !== undefined) yield* store.forget(resourceOf(url))
    return kept !== undefined
  })

/** Whether tokens are kept for `url`. */
export const loggedIn = (url: string, settings: LoginSettings) =>
  Effect.flatMap(
    TokenStore.makeFile(settings.file),
    (store) => Effect.map(store.tokens(resourceOf(url)), (kept) => kept !== undefined)
  )
