/** The `prompt` command: a prompt's messages, for people or as JSON. */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { json, print } from "../output.js"
import * as Render from "../render.js"
import { against, urlAndName, urlAndNameArgs } from "../server.js"

/** `prompt`: a prompt's messages. */
export const prompt = (server: ReadonlyArray<string>) =>
  Command.make(
    "prompt",
    {
      words: urlAndNameArgs("name", "the prompt's name"),
      arg: Options.keyValueMap("arg").pipe(
        Options.withDescription("a prompt argument, name=value (repeatable)"),
        Options.optional
      ),
      json
    },
    ({ arg, json, words }) => {
      const { name, url } = urlAndName(words)
      const args = Option.match(arg, { onNone: () => undefined, onSome: (m) => Object.fromEntries(m) })
      return against(server, url, (client) =>
        Effect.flatMap(client.getPrompt(name, args), (result) =>
          json
            ? print(result)
            : Console.log([
              ...(result.description ? [Render.dim(result.description), ""] : []),
              ...result.messages.map((m) => `${Render.bold(`${m.role}:`)} ${Render.block(m.content)}`)
            ].join("\n"))))
    }
  ).pipe(Command.withDescription("get a prompt and print its messages"))
