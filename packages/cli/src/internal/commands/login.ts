/**
 * The `login` and `logout` commands: `login <url>` forgets what was kept for that server, connects (a server that
 * asks for a login gets one: the URL to open is printed on stderr, and the browser's redirect comes back to a
 * listener on 127.0.0.1) and keeps the tokens for the next commands; `logout <url>` forgets them.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../../CliError.js"
import * as Target from "../../Target.js"
import * as LoginSettings from "../loginSettings.js"
import { against } from "../server.js"

const url = Args.text({ name: "url" }).pipe(Args.withDescription("the server's Streamable HTTP URL"))

/** The store could not be read or written: a usage problem of the environment (the file, its permissions). */
const storeFailure = (e: { readonly message: string }) => new UsageError({ message: e.message })

const checked = (url: string) =>
  Target.isUrl(url) ? Effect.succeed(url) : Effect.fail(new UsageError({ message: `not an http(s) URL: ${url}` }))

/** `login`: a fresh login to a server, kept for the next commands. */
export const login = Command.make("login", { url }, ({ url }) =>
  Effect.gen(function*() {
    const settings = LoginSettings.fromEnv()
    const auth = yield* Effect.promise(() => import("../login.js"))
    yield* checked(url)
    yield* Effect.mapError(auth.forget(url, settings), storeFailure)
    yield* against([], Option.some(url), () => Effect.void)
    const kept = yield* Effect.mapError(auth.loggedIn(url, settings), storeFailure)
    yield* Console.log(kept ? `logged in to ${url}` : `${url} asked for no login`)
  })).pipe(Command.withDescription("log in to a server that asks for OAuth, and keep the login for the next commands"))

/** `logout`: forgets the login kept for a server. */
export const logout = Command.make("logout", { url }, ({ url }) =>
  Effect.gen(function*() {
    const settings = LoginSettings.fromEnv()
    const auth = yield* Effect.promise(() => import("../login.js"))
    yield* checked(url)
    const forgotten = yield* Effect.mapError(auth.forget(url, settings), storeFailure)
    yield* Console.log(forgotten ? `logged out of ${url}` : `no login was kept for ${url}`)
  })).pipe(Command.withDescription("forget the login kept for a server"))
