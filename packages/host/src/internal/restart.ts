/** The restart schedule of a server: its default, and a driver that says each delay before it is slept. */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as Intervals from "effect/ScheduleIntervals"

/** Exponential from 250 ms, doubling, jittered, each delay capped at 30 s; it never gives up. */
export const defaultSchedule: Schedule.Schedule<unknown, string> = Schedule.exponential("250 millis", 2).pipe(
  Schedule.union(Schedule.spaced("30 seconds")),
  Schedule.jittered,
  Schedule.as(undefined)
)

/** Steps a schedule by hand: each failure's delay, or none when the schedule is done. */
export interface Driver {
  readonly next: (reason: string) => Effect.Effect<Option.Option<Duration.Duration>>
}

/** A driver at the schedule's start. */
export const driver = <Out>(schedule: Schedule.Schedule<Out, string>): Effect.Effect<Driver> =>
  Effect.sync(() => {
    let state: unknown = schedule.initial
    let done = false
    return {
      next: (reason) =>
        Effect.suspend(() => {
          if (done) return Effect.succeed(Option.none())
          return Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.map(
              (schedule as Schedule.Schedule<Out, string, never>).step(now, reason, state as never),
              ([next, , decision]) => {
                state = next
                if (ScheduleDecision.isDone(decision)) {
                  done = true
                  return Option.none()
                }
                return Option.some(Duration.millis(Math.max(0, Intervals.start(decision.intervals) - now)))
              }
            ))
        })
    }
  })
