/** One jest run, three tiers told apart by file name (STYLE.md 9). */
const moduleNameMapper = {
  '^@app/templates$': '<rootDir>/libs/templates/src',
  '^@app/registry$': '<rootDir>/libs/registry/src',
  '^@app/registry/testing$': '<rootDir>/libs/registry/src/testing',
  '^@app/meta-tool$': '<rootDir>/libs/meta-tool/src',
  '^@app/selection$': '<rootDir>/libs/selection/src',
  '^@app/db$': '<rootDir>/db',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
};
const common = { rootDir: __dirname, moduleNameMapper, transform, testEnvironment: 'node' };

module.exports = {
  // Every suite closes what it opens in afterAll/finally. A test that times out mid-way can
  // still leave a socket or a child behind (its finally runs only when its promise settles),
  // and one such handle must not keep the whole run, and CI, waiting after the results.
  forceExit: true,
  // Two workers on CI's two cores: most files wait on Postgres, Redis, child processes and
  // sockets rather than compute, and one worker took the run past 20 minutes. A worker that
  // holds more than this after a file (gateways started in-process leave caches behind) is
  // replaced before the next one: one worker running every file once reached V8's heap limit.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1200MB',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,db,scripts}/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/{apps,libs,db,scripts}/**/*.integration-spec.ts',
        '<rootDir>/test/e2e/**/*.e2e-spec.ts',
      ],
      globalSetup: '<rootDir>/test/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/integration-timeout.ts'],
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/browser/browser-timeout.ts'],
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/integration-timeout.ts'],
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};
