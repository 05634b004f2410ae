import { bubblewrapArgs, wrapped } from './wrapper';

describe('the sandbox wrapper', () => {
  it("binds the packages and the child's program folder read-only, and nothing of the gateway", () => {
    const args = bubblewrapArgs('/srv/gateway', '/srv/gateway/dist/child');
    const binds = args.flatMap((arg, i) => (arg === '--ro-bind' ? [args[i + 1]] : []));
    expect(binds).toEqual(
      expect.arrayContaining(['/srv/gateway/node_modules', '/srv/gateway/dist/child']),
    );
    expect(binds).not.toContain('/srv/gateway');
  });

  it('starts node with the program inside bubblewrap', () => {
    const [command, args] = wrapped('bubblewrap', ['/p/main.js'], '/r', '/p');
    expect(command).toBe('bwrap');
    expect(args.slice(-2)).toEqual([process.execPath, '/p/main.js']);
    expect(args).toEqual(expect.arrayContaining(['--ro-bind', '/p', '/p']));
  });
});
