import { BuiltinTools } from './builtin-tools';
import type { BuiltinTool } from './served-tool';

const tool = (name: string, category = 'tools'): BuiltinTool => ({
  definition: { name, description: name, inputSchema: { type: 'object' }, readOnly: true },
  category,
  call: () => Promise.reject(new Error('not called')),
});

describe('BuiltinTools', () => {
  it('holds each registered tool by name, and bumps its version on every registration', () => {
    const builtins = new BuiltinTools();
    expect(builtins.all()).toEqual([]);
    const before = builtins.version;
    const a = tool('a');
    builtins.register(a);
    builtins.register(tool('b'));
    expect(builtins.all().map((t) => t.definition.name)).toEqual(['a', 'b']);
    expect(builtins.version).toBe(before + 2);
  });

  it('replaces a tool registered again under the same name', () => {
    const builtins = new BuiltinTools();
    builtins.register(tool('a', 'old'));
    const newer = tool('a', 'new');
    builtins.register(newer);
    expect(builtins.all()).toEqual([newer]);
  });
});
