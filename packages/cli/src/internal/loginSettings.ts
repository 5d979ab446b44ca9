/**
 * Where the command keeps its logins and how it signs in, from the environment: `EFFECT_MCP_AUTH_FILE` (default
 * `$XDG_CONFIG_HOME/effect-mcp/auth.json`, else `~/.config/effect-mcp/auth.json`), and `EFFECT_MCP_AUTH_HEADLESS=1`,
 * for tests and automation only, which follows the authorization server's redirects instead of asking a person.
 * The OAuth code itself (`./login.ts`) is loaded only when a server asks for a login or a login is kept.
 */
import type { HostConfig } from "@effect-mcp/host"
import type { McpHttpClient } from "@effect-mcp/http"
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

/** How the command logs in. */
export interface LoginSettings {
  /** The token store file. */
  readonly file: string
  /** Follow the redirects headlessly (tests and automation) instead of printing the URL and awaiting the browser. */
  readonly headless: boolean
}

/** The settings from the environment. */
export const fromEnv = (env: NodeJS.ProcessEnv = process.env): LoginSettings => ({
  file: env["EFFECT_MCP_AUTH_FILE"] ??
    join(env["XDG_CONFIG_HOME"] ?? join(homedir(), ".config"), "effect-mcp", "auth.json"),
  headless: env["EFFECT_MCP_AUTH_HEADLESS"] === "1"
})

/**
 * An exchange function that logs in when needed: through the OAuth middleware at once when logins are kept, else
 * plainly until the server first answers 401 or 403, from when on through the middleware (loaded then), which
 * answers that request too. `auth` is a host entry's settings (client id and secret, scopes, grant).
 */
export const withLogin = (
  execute: McpHttpClient.Execute,
  settings: LoginSettings,
  auth?: HostConfig.HttpAuth
): Effect.Effect<McpHttpClient.Execute> =>
  Effect.gen(function*() {
    const authed = yield* Effect.cached(
      Effect.flatMap(Effect.promise(() => import("./login.js")), (login) => login.wrap(execute, settings, auth))
    )
    let active = existsSync(settings.file)
    return (request) =>
      active
        ? Effect.flatMap(authed, (through) => through(request))
        : Effect.flatMap(execute(request), (response) => {
          if (response.status !== 401 && response.status !== 403) return Effect.succeed(response)
          active = true
          return Effect.flatMap(authed, (through) => through(request))
        })
  })
