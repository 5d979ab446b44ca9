/**
 * The agent over its real servers (the everything server and the almanac, child processes over stdio, under one
 * host), driven by the scripted model: the steps it takes, the answer it reaches from what the tools returned, a
 * failed tool call that reaches the model; and the built program as its users run it, with no provider configured.
 */
import { McpHost } from "@effect-mcp/host"
import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Agent from "../src/Agent.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as Servers from "../src/Servers.js"

/** Waits until every server of the host is up, so that the model is offered all their tools. */
const serversUp = Effect.flatMap(
  McpHost.McpHost,
  (host) => Effect.forEach(host.servers, host.client, { discard: true })
)

/** Answers `question` with the scripted model, once the servers are up; returns the answer and the steps taken. */
const run = (question: string) =>
  Effect.gen(function*() {
    yield* serversUp
    const steps = yield* Ref.make<ReadonlyArray<Agent.Step>>([])
    const answer = yield* Agent.answer(question, { onStep: (step) => Ref.update(steps, (all) => [...all, step]) }).pipe(
      Effect.provide(ScriptedModel.layer)
    )
    return { answer, steps: yield* Ref.get(steps) }
  })

layer(Servers.host, { excludeTestServices: true })("the agent over its two servers", (it) => {
  it.effect("answers by calling the almanac's tool, then the everything server's, with what each returned", () =>
    Effect.gen(function*() {
      const { answer, steps } = yield* run("How many hours of the day on Mars are there for each of its moons?")
      expect(steps.map((s) => s._tag)).toEqual(["ToolCall", "ToolResult", "ToolCall", "ToolResult", "Answer"])
      expect(steps[0]).toMatchObject({ tool: "almanac__planet_facts", params: { planet: "Mars" } })
      expect(steps[1]).toMatchObject({ failed: false })
      const facts = JSON.parse((steps[1] as Extract<Agent.Step, { _tag: "ToolResult" }>).summary)
      expect(steps[2]).toMatchObject({
        tool: "everything__divide",
        params: { a: facts.dayLengthHours, b: facts.moons }
      })
      expect(steps[3]).toMatchObject({ failed: false })
      const quotient = facts.dayLengthHours / facts.moons
      expect(answer).toContain(`${quotient} hours per moon`)
      expect(Agent.describe(steps[0]!)).toBe(`step 1: the model calls almanac__planet_facts {"planet":"Mars"}`)
    }))

  it.effect("gives the model a failed tool call, which it answers with", () =>
    Effect.gen(function*() {
      const { answer, steps } = yield* run("How many hours of the day on Vulcan are there for each of its moons?")
      expect(steps.map((s) => s._tag)).toEqual(["ToolCall", "ToolResult", "Answer"])
      expect(steps[1]).toMatchObject({
        tool: "almanac__planet_facts",
        failed: true,
        summary: "the almanac knows no rocky planet named Vulcan"
      })
      expect(answer).toBe("I could not find out: the almanac knows no rocky planet named Vulcan.")
    }))

  it.effect("gives up after maxSteps model calls that only call tools", () =>
    Effect.gen(function*() {
      yield* serversUp
      const error = yield* Agent.answer("How many hours of the day on Mars are there for each of its moons?", {
        maxSteps: 1
      }).pipe(Effect.provide(ScriptedModel.layer), Effect.flip)
      expect(error).toEqual(new Agent.AgentGaveUp({ steps: 1 }))
    }))
})

describe("the agent program", () => {
  it("prints a line per step and the answer, and exits 0, with the scripted model when no provider is set", async () => {
    const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))
    const { OPENAI_API_KEY: _o, ANTHROPIC_API_KEY: _a, ...env } = process.env
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [
        main,
        "How many hours of the day on Earth are there for each of its moons?"
      ], {
        env,
        stdio: ["ignore", "pipe", "inherit"]
      })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, out }))
    })
    expect(code).toBe(0)
    const lines = out.trim().split("\n")
    expect(lines[0]).toMatch(/^model: scripted/)
    expect(lines).toContain(`step 1: the model calls almanac__planet_facts {"planet":"Earth"}`)
    expect(lines.at(-1)).toMatch(
      /^step 3: the model answers: A day on Earth lasts 24 hours; with 1 moon that is 24 hours per moon\.$/
    )
  })
})
