import { Logger } from '@nestjs/common';
import { GeneratedAdmission } from './generated-admission';
import { generatedRecord } from '../snapshot.spec-helper';

describe('GeneratedAdmission', () => {
  let warned: jest.SpyInstance;
  beforeEach(() => {
    warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warned.mockRestore());

  it('admits sound tools in record order and skips refused ones', () => {
    const admission = new GeneratedAdmission(10);
    const records = [
      generatedRecord('g_a'),
      { ...generatedRecord('g_b'), sha256: '0'.repeat(64) },
      { ...generatedRecord('g_c'), status: 'disabled' as const },
      generatedRecord('g_d'),
    ];
    expect(admission.admit('acme', records).map((t) => t.definition.name)).toEqual(['g_a', 'g_d']);
  });

  it('judges a record once: the same record gives the same tool, and a refusal is logged once', () => {
    const admission = new GeneratedAdmission(10);
    const good = generatedRecord('g_a');
    const bad = { ...generatedRecord('g_b'), sha256: '0'.repeat(64) };
    const [first] = admission.admit('acme', [good, bad]);
    const [again] = admission.admit('acme', [good, bad]);
    expect(again).toBe(first);
    expect(warned).toHaveBeenCalledTimes(1);
    expect(String(warned.mock.calls[0]![0])).toContain('acme/g_b');
  });

  it('does not log a disabled tool', () => {
    new GeneratedAdmission(10).admit('acme', [
      { ...generatedRecord('g'), status: 'disabled' as const },
    ]);
    expect(warned).not.toHaveBeenCalled();
  });

  it('judges a tampered source again, even when a verdict on its name was remembered', () => {
    const admission = new GeneratedAdmission(10);
    const good = generatedRecord('g_a');
    expect(admission.admit('acme', [good])).toHaveLength(1);
    const tampered = { ...good, source: `${good.source}; steal()` };
    expect(admission.admit('acme', [tampered])).toEqual([]);
  });

  it("keeps tenants' verdicts apart", () => {
    const admission = new GeneratedAdmission(10);
    const record = generatedRecord('g_a');
    const [acme] = admission.admit('acme', [record]);
    const [globex] = admission.admit('globex', [record]);
    expect(globex).not.toBe(acme);
  });

  it('remembers at most `max` verdicts: a forgotten one is judged (and logged) again', () => {
    const admission = new GeneratedAdmission(1);
    const bad = { ...generatedRecord('g_b'), sha256: '0'.repeat(64) };
    admission.admit('acme', [bad]);
    admission.admit('acme', [generatedRecord('g_a')]);
    admission.admit('acme', [bad]);
    expect(warned).toHaveBeenCalledTimes(2);
  });
});
