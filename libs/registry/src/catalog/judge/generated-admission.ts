import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { GeneratedToolRecord } from '../model/catalog-records';
import { GeneratedTool, generatedToolProblem } from '../model/generated-tools';

/**
 * Judges generated tools (meta_tool) once per source and record, remembering the verdicts
 * (at most `max`); a refused tool is logged once and skipped.
 */
export class GeneratedAdmission {
  private readonly logger = new Logger('CatalogStore');
  private readonly verdicts: LRUCache<string, { tool?: GeneratedTool }>;

  constructor(max: number) {
    this.verdicts = new LRUCache({ max });
  }

  /** The tools whose source matches its sha256 and whose schema compiles. */
  admit(tenantId: string, records: readonly GeneratedToolRecord[]): GeneratedTool[] {
    const tools: GeneratedTool[] = [];
    for (const record of records) {
      // keyed by what the source really is, so a tampered source is judged again
      const key = `${tenantId}:generated:${record.name}:${createHash('sha256').update(record.source).digest('hex')}:${record.sha256}:${record.status}`;
      let admitted = this.verdicts.get(key);
      if (admitted === undefined) {
        const problem = generatedToolProblem(record);
        admitted = problem ? {} : { tool: new GeneratedTool(record) };
        this.verdicts.set(key, admitted);
        if (problem && problem !== 'disabled')
          this.logger.warn(`generated tool ${tenantId}/${record.name} is skipped: ${problem}`);
      }
      if (admitted.tool) tools.push(admitted.tool);
    }
    return tools;
  }
}
