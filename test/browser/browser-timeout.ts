// A real browser against a real gateway: each test walks a whole screen, so more room than
// the integration tests, still bounded.
jest.setTimeout(60_000);
