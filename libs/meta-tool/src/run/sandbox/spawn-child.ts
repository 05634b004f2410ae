import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childProgram } from './child-program';
import type { SandboxPoolOptions } from './sandbox-types';
import { chooseWrapper, wrapped } from './wrapper';

const QUICKJS = require.resolve('quickjs-emscripten');

/** what a child may read: the node_modules holding the engine */
export const NODE_MODULES = path.resolve(QUICKJS, '..', '..', '..', '..');

/**
 * The child process: node running the child program (`child/main.ts`, or the test's
 * `workerSource`), with permissions, in the wrapper. It may read the packages and its program.
 */
export function spawnChild(options: SandboxPoolOptions): ChildProcess {
  const program = childProgram();
  const nodeArgs = [
    '--experimental-permission',
    `--allow-fs-read=${NODE_MODULES}/*`,
    `--allow-fs-read=${program.dir}/*`,
    `--max-old-space-size=${options.childHeapMb}`,
    '--no-warnings',
    ...(options.workerSource === undefined ? [program.main] : ['-e', options.workerSource]),
    QUICKJS,
    String(options.limits.memoryBytes),
  ];
  const wrapper = chooseWrapper(options.isolateNetwork, NODE_MODULES, program.dir);
  const [command, args] = wrapped(wrapper, nodeArgs, NODE_MODULES, program.dir);
  return spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: {},
    serialization: 'json',
  });
}
