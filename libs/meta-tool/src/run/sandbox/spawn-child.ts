import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { SandboxPoolOptions } from './sandbox-types';
import { WORKER_SOURCE } from './worker-source';
import { chooseWrapper, wrapped } from './wrapper';

const QUICKJS = require.resolve('quickjs-emscripten');

/** what a child may read: the node_modules holding the engine */
export const NODE_MODULES = path.resolve(QUICKJS, '..', '..', '..', '..');

/** The child process: node running the worker source, with permissions, in the wrapper. */
export function spawnChild(options: SandboxPoolOptions): ChildProcess {
  const nodeArgs = [
    '--experimental-permission',
    `--allow-fs-read=${NODE_MODULES}/*`,
    `--max-old-space-size=${options.childHeapMb}`,
    '--no-warnings',
    '-e',
    options.workerSource ?? WORKER_SOURCE,
    QUICKJS,
    String(options.limits.memoryBytes),
  ];
  const wrapper = chooseWrapper(options.isolateNetwork, NODE_MODULES);
  const [command, args] = wrapped(wrapper, nodeArgs, NODE_MODULES);
  return spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: {},
    serialization: 'json',
  });
}
