// Real servers and child processes: generous on a loaded machine, still bounded. (Jest
// ignores `testTimeout` inside a project's config, so it is set here, per test file.)
jest.setTimeout(20_000);
