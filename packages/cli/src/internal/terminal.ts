/**
 * Colour on the terminal: styles only where a person reads a terminal (the stream is a TTY and `NO_COLOR` is unset),
 * and a Console that strips the styles of text written elsewhere (a pipe, a file), including @effect/cli's help.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** Whether text written to this stream may carry colour and styles. */
export const styled = (stream: NodeJS.WriteStream): boolean =>
  stream.isTTY === true && (process.env.NO_COLOR === undefined || process.env.NO_COLOR === "")

// ANSI control sequences: SGR styles and the cursor/erase sequences a progress bar uses.
const ansi = /\x1b\[[0-9;?]*[A-Za-z]/g

/** The text without its ANSI control sequences. */
export const plain = (text: string): string => text.replace(ansi, "")

const stripped = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? plain(a) : a))

/** The console with styles stripped from what goes to stdout or stderr when that stream is not styled. */
const plainWhereUnstyled = (base: Console.Console): Console.Console => {
  const out = styled(process.stdout)
  const err = styled(process.stderr)
  if (out && err) return base
  const log = (...args: ReadonlyArray<unknown>) => base.log(...(out ? args : stripped(args)))
  const error = (...args: ReadonlyArray<unknown>) => base.error(...(err ? args : stripped(args)))
  return {
    ...base,
    log,
    info: log,
    error,
    warn: error,
    unsafe: {
      ...base.unsafe,
      log: (...args) => base.unsafe.log(...(out ? args : stripped(args))),
      info: (...args) => base.unsafe.info(...(out ? args : stripped(args))),
      error: (...args) => base.unsafe.error(...(err ? args : stripped(args))),
      warn: (...args) => base.unsafe.warn(...(err ? args : stripped(args)))
    }
  }
}

/** Runs the effect with a console that writes styles only to a styled stream. */
export const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((current) => Console.withConsole(effect, plainWhereUnstyled(current)))
