/**
 * A call with progress as a Stream: its progress updates, then its result. A consumer slower than the server's
 * progress sees the newest updates (older ones are dropped) and always the result: memory stays bounded however fast
 * the server reports.
 */
import type { Mcp } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import type { CallEvent, CallOptions, McpClientError } from "../../McpClient.js"

/** How many progress updates `callToolStream` keeps for a consumer that is behind (older ones are dropped). */
export const progressWindow = 64

/** `callTool` run with a progress callback, as a Stream of its progress updates ending in its result. */
export const callToolStream = (
  callTool: (
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: CallOptions
  ) => Effect.Effect<Mcp.CallToolResult, McpClientError>,
  name: string,
  args: Readonly<Record<string, unknown>> | undefined,
  callOptions: Omit<CallOptions, "onProgress"> | undefined
): Stream.Stream<CallEvent<Mcp.CallToolResult>, McpClientError> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      const mailbox = yield* Mailbox.make<CallEvent<Mcp.CallToolResult>, McpClientError>({
        capacity: progressWindow,
        strategy: "sliding"
      })
      yield* callTool(name, args, {
        ...callOptions,
        // The engine calls `onProgress` in the transport's call, outside any fiber: `unsafeOffer` is the Mailbox's
        // synchronous offer for such callbacks (an Effect there would need a run or a fiber per progress update).
        onProgress: (progress) => {
          mailbox.unsafeOffer({ _tag: "Progress", progress })
        }
      }).pipe(
        Effect.matchEffect({
          onFailure: (e) => mailbox.fail(e),
          onSuccess: (result) => mailbox.offer({ _tag: "Result", result }).pipe(Effect.zipRight(mailbox.end))
        }),
        Effect.forkScoped
      )
      return Mailbox.toStream(mailbox)
    })
  )
