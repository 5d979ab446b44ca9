/**
 * Both directions over stdio: an @effect/ai Toolkit served by ToolkitServer in a real child process
 * (`fixtures/toolkitServer.mjs`, on the built packages), its tools taken back by McpToolkit through our stdio client,
 * and called by a scripted LanguageModel: the result, the typed failure, progress, and a cancellation that reaches
 * the child.
 */
import { McpToolkit, ScriptedLanguageModel } from "@effect-mcp/ai"
import { McpClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import * as LanguageModel from "@effect/ai/LanguageModel"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("./fixtures/toolkitServer.mjs", import.meta.url))

const Client = McpClient.layer({ name: "stdio-test", version: "1.0.0" }).pipe(
  Layer.provide(StdioClientTransport.layer({ command: process.execPath, args: [fixture] }))
)

/** One model call that calls `name` with `params`, over the toolkit of the connected server. */
const callThroughModel = (name: string, params: unknown) =>
  Effect.gen(function*() {
    const toolkit = yield* McpToolkit.fromClient(yield* McpClient.McpClient)
    const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: toolkit.withHandler }).pipe(
      Effect.provide(ScriptedLanguageModel.layer([() =>
        Effect.succeed([
          ScriptedLanguageModel.toolCall("call-1", name, params),
          ScriptedLanguageModel.finish("tool-calls")
        ])]))
    )
    return response.toolResults[0]!
  })

layer(Client, { excludeTestServices: true })(
  "an @effect/ai Toolkit served over stdio, called as a Toolkit by a model",
  (it) => {
    it.effect("lists the toolkit's schemas and gives the model its structured result", () =>
      Effect.gen(function*() {
        const tools = yield* (yield* McpClient.McpClient).listTools()
        const convert = tools.find((t) => t.name === "convert")!
        expect(convert.inputSchema).toMatchObject({
          type: "object",
          properties: { celsius: { type: "number", description: "Degrees Celsius" } },
          required: ["celsius"]
        })
        expect(convert.outputSchema).toMatchObject({ type: "object", properties: { fahrenheit: { type: "number" } } })
        const result = yield* callThroughModel("convert", { celsius: 100 })
        expect(result.isFailure).toBe(false)
        expect(result.result).toMatchObject({ structuredContent: { fahrenheit: 212 } })
      }))

    it.effect("gives the model the tool's typed failure", () =>
      Effect.gen(function*() {
        const result = yield* callThroughModel("convert", { celsius: -300 })
        expect(result.isFailure).toBe(true)
        expect(result.result).toMatchObject({
          tool: "convert",
          reason: "ToolError",
          failure: { _tag: "BelowAbsoluteZero", celsius: -300 }
        })
        expect((result.result as McpToolkit.ToolCallFailed).message).toContain("BelowAbsoluteZero")
      }))

    it.effect("carries progress to the caller and cancels the call in the child when the model call is interrupted", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const before = yield* client.callTool("cancellations", {})
        const started = yield* Ref.make(0)
        const progressed = yield* Effect.makeLatch(false)
        const fiber = yield* callThroughModel("wait", {}).pipe(
          McpToolkit.withProgress(() => Effect.zipRight(Ref.update(started, (n) => n + 1), progressed.open)),
          Effect.fork
        )
        yield* progressed.await
        yield* Fiber.interrupt(fiber)
        const count = (r: typeof before) => (r.structuredContent as { readonly count: number }).count
        // The cancellation is a notification: the next call's answer comes after it has been handled.
        let after = yield* client.callTool("cancellations", {})
        while (count(after) === count(before)) after = yield* client.callTool("cancellations", {})
        expect(count(after)).toBe(count(before) + 1)
        expect(yield* Ref.get(started)).toBe(1)
      }))
  }
)
