// Mutation testing (Stryker, vitest runner) of the security- and protocol-critical modules, one group at a time:
// each group mutates its modules and runs only the fast tests that exercise them (suites that spawn child processes
// or need dist/ are left out). `node scripts/mutation.mjs [group...]` runs the groups; MUTATION_GROUP picks one here.
//
// The tests of a group are chosen in stryker.vitest.config.mjs, not with Stryker's `testFiles`: with `testFiles`,
// Stryker 9.6 activates a mutant evaluated when its module loads only after the module has loaded, and reports it
// survived without testing it (stryker-mutator/stryker-js#6144).

/** The groups: the modules mutated, and the test files (by package) that must kill their mutants. */
export const groups = {
  http: {
    mutate: [
      "packages/http/src/internal/guards.ts",
      "packages/http/src/internal/media.ts",
      "packages/http/src/internal/sessionLimits.ts"
    ],
    tests: {
      http: ["test/guards.test.ts", "test/contentNegotiation.test.ts", "test/sessionLimits.test.ts", "test/*.mutation.test.ts"]
    }
  },
  schema: {
    mutate: ["packages/schema/src/JsonRpc.ts", "packages/schema/src/Codec.ts"],
    tests: {
      schema: [
        "test/invalid.test.ts",
        "test/lenient.test.ts",
        "test/revisions.test.ts",
        "test/examples.test.ts",
        "test/*.mutation.test.ts"
      ]
    }
  },
  requestState: {
    mutate: ["packages/core/src/internal/requestState.ts"],
    tests: { core: ["test/requestState.test.ts", "test/requestState.mutation.test.ts"] }
  },
  engine: {
    // engine.ts and its folder, split from the one engine.ts this group mutated; of fastPath.ts only the engine's part
    // (its last section, a handler's context, came from handlerContext.ts, which no group mutated).
    mutate: [
      "packages/core/src/internal/engine.ts",
      ...["batch", "connection", "incoming", "outgoing", "pending", "receive", "refusals", "send", "timeouts", "types"]
        .map((name) => `packages/core/src/internal/engine/${name}.ts`),
      "packages/core/src/internal/engine/fastPath.ts:1-97",
      "packages/core/src/internal/frameLimits.ts"
    ],
    tests: { core: ["test/engine.test.ts", "test/hostileFrames.test.ts", "test/engine.mutation.test.ts"] }
  }
}

/** The group a run mutates (MUTATION_GROUP). */
export const groupName = process.env.MUTATION_GROUP ?? "http"
if (!(groupName in groups)) {
  throw new Error(`MUTATION_GROUP: no group ${groupName} (one of ${Object.keys(groups).join(", ")})`)
}

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "stryker.vitest.config.mjs", related: false },
  mutate: groups[groupName].mutate,
  coverageAnalysis: "perTest",
  concurrency: 2,
  // A busy machine makes slow runs: a mutant only counts as a timeout well past its tests' normal time.
  timeoutFactor: 3,
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 20,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${groupName}.html` },
  jsonReporter: { fileName: `reports/mutation/${groupName}.json` },
  incrementalFile: `reports/mutation/${groupName}.incremental.json`,
  // TypeScript 7 (native) has no JS API for Stryker to rewrite tsconfig.json with, and the tests need none (vitest
  // strips types): point it at no file.
  tsconfigFile: "stryker.no-tsconfig.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: true
}
