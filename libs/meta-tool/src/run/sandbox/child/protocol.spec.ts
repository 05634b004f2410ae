import { valid } from './protocol';

describe("the sandbox child's messages from the parent", () => {
  const run = {
    type: 'run',
    job: 1,
    source: 'export default {}',
    name: 't',
    args: '{}',
    user: '{}',
    call: true,
    limits: {},
  };

  it('takes a job and a reply of the right shape', () => {
    expect(valid(run)).toBe(true);
    expect(valid({ type: 'reply', job: 1, id: 2, ok: true, value: '[]' })).toBe(true);
    expect(valid({ type: 'reply', job: 1, id: 2, ok: false, error: 'no' })).toBe(true);
  });

  it('ignores anything else', () => {
    expect(valid(null)).toBe(false);
    expect(valid('run')).toBe(false);
    expect(valid({ ...run, limits: null })).toBe(false);
    expect(valid({ ...run, call: 'yes' })).toBe(false);
    expect(valid({ type: 'reply', job: 1, id: 2, ok: true, error: 'no' })).toBe(false);
    expect(valid({ type: 'other', job: 1 })).toBe(false);
  });
});
