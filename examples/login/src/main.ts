/**
 * A login without a browser, for a person to watch. It starts a real authorization server (oidc-provider, on
 * 127.0.0.1) and the everything server protected by it (`--http --auth-issuer`, where `echo` needs `mcp:write`),
 * then connects our client with OAuth: the server answers 401, the client finds the authorization server, registers
 * itself, and prints the authorization URL on stderr instead of opening a browser (`InteractiveStep.printUrl`), as
 * a command on a remote machine does. Whoever opens that URL and signs in (the test authorization server grants at
 * once) is sent back to the client's loopback listener on 127.0.0.1; the client redeems the code, connects, and
 * calls `echo`. A line per step goes to stdout; tokens and codes are never printed. It ends by itself, with every
 * process it started stopped.
 */
import * as AuthServer from "@effect-mcp-examples/oauth-server"
import { InteractiveStep, OAuthClient, TokenStore } from "@effect-mcp/auth"
import { McpClient } from "@effect-mcp/core"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const everythingMain = fileURLToPath(new URL("../../everything/dist/main.js", import.meta.url))

/** The protected server could not be started. */
class ServerFailed extends Data.TaggedError("ServerFailed")<{ readonly reason: string }> {}

let step = 0
const say = (line: string) => Console.log(`${++step}. ${line}`)

/** The everything server over HTTP, protected by `issuer`, as a child process; stopped (and awaited) with the scope. */
const protectedServer = (issuer: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly stop: Effect.Effect<void> }, ServerFailed>((resume) => {
      const child = spawn(process.execPath, [everythingMain, "--http", "--auth-issuer", issuer], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      const exited = new Promise<void>((done) => child.once("exit", () => done()))
      const onExit = (code: number | null) => resume(Effect.fail(new ServerFailed({ reason: `exited with ${code}` })))
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk
        const match = /^LISTENING (\S+)$/m.exec(out)
        if (match === null) return
        child.off("exit", onExit)
        const stop = Effect.promise(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          return exited
        })
        resume(Effect.succeed({ url: match[1]!, stop }))
      })
      child.once("exit", onExit)
      child.once("error", (cause) => resume(Effect.fail(new ServerFailed({ reason: cause.message }))))
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    ({ stop }) => stop
  )

/** Prints the authorization URL on stderr for the person, and says on stdout where the redirect is awaited. */
const show = (authorizationUrl: string) =>
  InteractiveStep.printUrl(authorizationUrl).pipe(
    Effect.zipRight(
      say(
        `the client printed the URL to open on stderr, and waits for the redirect on ${
          new URL(authorizationUrl).searchParams.get("redirect_uri")
        }`
      )
    )
  )

const login = Effect.gen(function*() {
  const auth = yield* AuthServer.start
  yield* say(`authorization server (oidc-provider) at ${auth.issuer}`)
  const { url } = yield* protectedServer(auth.issuer)
  yield* say(`protected MCP server (everything --http --auth-issuer) at ${url}`)
  yield* say("connecting: the server answers 401, so the client finds its authorization server and registers")

  const client = yield* Layer.build(
    McpClient.layer({ name: "login-example", version: "1.0.0" }).pipe(
      Layer.provide(OAuthClient.layerNodeHttp({ url }, { clientName: "effect-mcp login example" })),
      Layer.provide(Layer.merge(TokenStore.layerMemory, InteractiveStep.layerLoopback({ show })))
    )
  ).pipe(Effect.map((context) => Context.get(context, McpClient.McpClient)))
  yield* say(
    `signed in and connected to ${client.serverInfo.name} ${client.serverInfo.version} (revision ${client.revision})`
  )

  const answer = yield* client.callTool("echo", { text: "hello after a login without a browser" })
  const text = answer.content[0]?.type === "text" ? answer.content[0].text : ""
  yield* say(`echo (which needs mcp:write) answered: "${text}"`)
})

const program = Effect.gen(function*() {
  yield* Effect.scoped(login)
  yield* say("done: the client, the MCP server and the authorization server are stopped")
})

program.pipe(
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
