import { initSqlParser } from '@app/templates';
import { AccessPolicy } from '../../access/access-policy';
import { accessRecords, admitAll, storedReport, TENANT } from '../fixtures.spec-helper';
import { GeneratedTool } from './generated-tools';
import { ReportSet } from './report-set';
import { generatedRecord } from '../snapshot.spec-helper';
import { admitReport } from '../judge/admit-report';
import type { TemplateJudge } from '../judge/admit-report';
import { TenantCatalog } from './tenant-catalog';

const clean: TemplateJudge = () => [];

// a report tool binds its template with the SQL parser (WebAssembly, slow on a loaded machine)
beforeAll(() => initSqlParser(), 30_000);

describe('TenantCatalog', () => {
  function catalog(admit = admitAll) {
    const reports = ReportSet.of(
      [storedReport('a', 'sales', 2), storedReport('b', 'sales', 5, 'disabled')],
      'scope',
      (s) => (s.status === 'disabled' ? admitReport(s, TENANT, clean) : admit(s)),
    );
    const tools = [
      new GeneratedTool(generatedRecord('g_one')),
      new GeneratedTool(generatedRecord('g_two')),
    ];
    return new TenantCatalog(TENANT, reports, new AccessPolicy(accessRecords()), tools);
  }

  it("is at its tenant's catalog version, and tells each report's version and status", () => {
    const c = catalog();
    expect(c.version).toBe(TENANT.catalogVersion);
    expect(c.reportVersion('a')).toBe(2);
    expect(c.reportStatus('a')).toEqual({ served: true });
    expect(c.reportVersion('b')).toBe(5);
    expect(c.reportStatus('b')).toEqual({ served: false, reason: 'disabled' });
  });

  it('knows nothing of a report it does not hold', () => {
    const c = catalog();
    expect(c.reportVersion('missing')).toBeUndefined();
    expect(c.reportStatus('missing')).toBeUndefined();
  });

  it('holds its generated tools by name', () => {
    const c = catalog();
    expect([...c.generated.keys()]).toEqual(['g_one', 'g_two']);
    expect(c.generated.get('g_two')?.record.name).toBe('g_two');
  });
});
