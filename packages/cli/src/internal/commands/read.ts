/** The `read` command: a resource's contents, for people or as JSON. */
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { json, print } from "../output.js"
import * as Render from "../render.js"
import { against, urlAndName, urlAndNameArgs } from "../server.js"

/** `read`: a resource's contents. */
export const read = (server: ReadonlyArray<string>) =>
  Command.make(
    "read",
    {
      words: urlAndNameArgs("uri", "the resource's URI"),
      json
    },
    ({ json, words }) => {
      const { name: uri, url } = urlAndName(words)
      return against(server, url, (client) =>
        Effect.flatMap(client.readResource(uri), (result) =>
          json
            ? print(result)
            : Console.log(
              result.contents.map((c) =>
                "text" in c
                  ? c.text
                  : Render.dim(`[${c.mimeType ?? "binary"}, ${Math.round((c.blob.length * 3) / 4)} bytes]`)
              ).join("\n")
            )))
    }
  ).pipe(Command.withDescription("read a resource and print its contents"))
