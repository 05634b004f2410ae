import { initSqlParser, ReportTool } from '@app/templates';
import { storedReport } from '../catalog/fixtures.spec-helper';
import {
  GENERATED_CATEGORY,
  GeneratedTool,
  TOOL_AUTHOR_ROLE,
} from '../catalog/model/generated-tools';
import { generatedRecord } from '../catalog/snapshot.spec-helper';
import { accessSubject } from './served-tool';
import { builtinTool } from './fixtures.spec-helper';

describe('accessSubject', () => {
  beforeAll(() => initSqlParser(), 30_000);

  it('judges a report by its id and category', () => {
    const report = new ReportTool(storedReport('revenue', 'sales').metadata);
    expect(accessSubject({ kind: 'report', definition: report.definition, report })).toEqual({
      id: 'revenue',
      category: 'sales',
    });
  });

  it('judges a built-in by its name, category and required role', () => {
    const builtin = builtinTool('tool_author');
    expect(accessSubject({ kind: 'builtin', definition: builtin.definition, builtin })).toEqual({
      id: 'meta_tool',
      category: 'tools',
      requiredRole: 'tool_author',
    });
  });

  it('judges a generated tool as owned by tool authors and hidden from admins by default', () => {
    const generated = new GeneratedTool(generatedRecord('g_sum'));
    expect(
      accessSubject({ kind: 'generated', definition: generated.definition, generated }),
    ).toEqual({
      id: 'g_sum',
      category: GENERATED_CATEGORY,
      ownerRole: TOOL_AUTHOR_ROLE,
      adminSees: false,
    });
  });
});
