import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** What a sandbox child runs inside, best first: its own namespaces, or none. */
export type SandboxWrapper = 'bubblewrap' | 'unshare' | 'none';

let bubblewrapProbe: boolean | undefined;
let unshareProbe: boolean | undefined;

function probe(command: string, args: string[]): boolean {
  try {
    return spawnSync(command, args, { stdio: 'ignore', timeout: 5000, env: {} }).status === 0;
  } catch {
    return false;
  }
}

/** Whether `unshare -rn` works here (user + network namespace without privileges). */
export function networkNamespaceAvailable(): boolean {
  unshareProbe ??= probe('unshare', ['-rn', 'true']);
  return unshareProbe;
}

/**
 * bubblewrap's arguments for a child that sees only the system's programs and libraries
 * (read-only), the node binary, the packages directory and its own program's folder
 * (read-only), and nothing else of the gateway: new user, PID, network, IPC, UTS and cgroup
 * namespaces, a new session, killed with its parent. The permission model inside narrows file
 * reads further.
 */
export function bubblewrapArgs(readRoot: string, programDir: string): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  args.push('--ro-bind', '/usr', '/usr');
  for (const dir of ['/lib', '/lib64', '/bin']) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  const nodeDir = path.dirname(realpathSync(process.execPath));
  if (!nodeDir.startsWith('/usr/')) args.push('--ro-bind', nodeDir, nodeDir);
  const packages = path.join(readRoot, 'node_modules');
  args.push('--ro-bind', packages, packages, '--ro-bind', programDir, programDir);
  args.push('--proc', '/proc', '--dev', '/dev', '--chdir', '/');
  return args;
}

/** Whether bubblewrap can start `node` in its namespaces here (probed once). */
export function bubblewrapAvailable(readRoot: string, programDir: string): boolean {
  bubblewrapProbe ??= probe('bwrap', [
    ...bubblewrapArgs(readRoot, programDir),
    process.execPath,
    '-e',
    'process.exit(0)',
  ]);
  return bubblewrapProbe;
}

/** The wrapper a child gets: bubblewrap where it works, else `unshare -rn`, else none. */
export function chooseWrapper(
  isolate: boolean,
  readRoot: string,
  programDir: string,
): SandboxWrapper {
  if (!isolate) return 'none';
  if (bubblewrapAvailable(readRoot, programDir)) return 'bubblewrap';
  return networkNamespaceAvailable() ? 'unshare' : 'none';
}

/** The command and arguments that start `node nodeArgs` inside the wrapper. */
export function wrapped(
  wrapper: SandboxWrapper,
  nodeArgs: string[],
  readRoot: string,
  programDir: string,
): [string, string[]] {
  if (wrapper === 'bubblewrap')
    return ['bwrap', [...bubblewrapArgs(readRoot, programDir), process.execPath, ...nodeArgs]];
  if (wrapper === 'unshare') return ['unshare', ['-rn', process.execPath, ...nodeArgs]];
  return [process.execPath, nodeArgs];
}
