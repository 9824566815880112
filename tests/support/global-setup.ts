// Global setup for the whole suite. Suites that need external servers (PostgreSQL, Redis, the
// built app) start them through helpers in tests/support and stop them by pid in teardown.
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
