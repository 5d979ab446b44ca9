import { afterEach } from "vitest"

// Synchronous test files (the schema property sweeps) never give the worker's event loop a turn, so vitest's
// own RPC replies sit unread until its fixed 60 s timeout fires and the run exits 1 with every test green.
// One macrotask after each test lets the worker read them.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)))
