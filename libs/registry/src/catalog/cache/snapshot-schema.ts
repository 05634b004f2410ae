import Ajv from 'ajv';
import type { JSONSchemaType } from 'ajv';
import type {
  AccessRecords,
  GeneratedToolRecord,
  StoredReport,
  TenantRecord,
} from '../model/catalog-records';

/** What L2 holds per tenant and version: everything a catalog is built from. */
export interface CatalogSnapshot {
  tenant: TenantRecord;
  reports: StoredReport[];
  access: AccessRecords;
  generated: GeneratedToolRecord[];
}

/** The shape of a catalog snapshot in L2 (see l2-values.ts): anything else is refused. */
const str = { type: 'string' } as const;
const nullableStr = { type: 'string', nullable: true } as const;
const closed = <T>(properties: T, required: Array<keyof T>) => ({
  type: 'object' as const,
  properties,
  required,
  additionalProperties: false,
});

const snapshotSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['tenant', 'reports', 'access', 'generated'],
  properties: {
    tenant: closed(
      {
        id: str,
        name: str,
        createdAt: str,
        catalogVersion: { type: 'integer' },
        dataSchema: nullableStr,
        allowedTables: { type: 'array', items: str },
        sources: {
          type: 'object',
          additionalProperties: closed(
            {
              schema: str,
              tables: { type: 'array', items: str },
              revision: str,
              statementTimeoutMs: { type: 'integer', nullable: true },
              passIdentity: { type: 'boolean' },
              engine: { type: 'string', enum: ['mysql'] },
            },
            ['schema', 'tables', 'revision', 'statementTimeoutMs'],
          ),
        },
      },
      ['id', 'name', 'createdAt', 'catalogVersion', 'dataSchema', 'allowedTables'],
    ),
    reports: {
      type: 'array',
      items: closed(
        {
          status: { type: 'string', enum: ['active', 'disabled'] },
          updatedAt: str,
          metadata: closed(
            {
              tenantId: str,
              id: str,
              name: str,
              description: str,
              sqlTemplate: str,
              category: str,
              version: { type: 'integer' },
              datasource: str,
              synonyms: { type: 'array', items: str },
              exampleQuestions: { type: 'array', items: str },
              limits: closed(
                {
                  statementTimeoutMs: { type: 'integer', nullable: true },
                  maxRows: { type: 'integer', nullable: true },
                  maxResultBytes: { type: 'integer', nullable: true },
                },
                ['statementTimeoutMs', 'maxRows', 'maxResultBytes'],
              ),
              chart: { type: 'object' },
              runAsTask: { type: 'boolean' },
              cacheTtlSeconds: { type: 'integer' },
              filters: {
                type: 'array',
                items: closed(
                  {
                    name: str,
                    type: str,
                    description: str,
                    required: { type: 'boolean' },
                    enumValues: {
                      type: 'array',
                      items: { type: 'string', nullable: true },
                      nullable: true,
                    },
                    defaultValue: {},
                  },
                  ['name', 'type', 'description', 'required', 'enumValues'],
                ),
              },
              fields: {
                type: 'array',
                items: closed({ name: str, type: str, description: str }, [
                  'name',
                  'type',
                  'description',
                ]),
              },
            },
            [
              'tenantId',
              'id',
              'name',
              'description',
              'sqlTemplate',
              'category',
              'version',
              'filters',
              'fields',
            ],
          ),
        },
        ['status', 'updatedAt', 'metadata'],
      ),
    },
    access: closed(
      {
        roles: {
          type: 'array',
          items: closed({ name: str, isAdmin: { type: 'boolean' } }, ['name', 'isAdmin']),
        },
        userRoles: {
          type: 'array',
          items: closed({ userId: str, role: str }, ['userId', 'role']),
        },
        userGrants: {
          type: 'array',
          items: closed(
            {
              userId: str,
              category: nullableStr,
              reportId: nullableStr,
              effect: { type: 'string', enum: ['allow', 'deny'] },
            },
            ['userId', 'category', 'reportId', 'effect'],
          ),
        },
        roleGrants: {
          type: 'array',
          items: closed({ role: str, category: nullableStr, reportId: nullableStr }, [
            'role',
            'category',
            'reportId',
          ]),
        },
        contexts: {
          type: 'array',
          items: closed(
            { name: str, description: str, category: nullableStr, reportId: nullableStr },
            ['name', 'description', 'category', 'reportId'],
          ),
        },
      },
      ['roles', 'userRoles', 'userGrants', 'roleGrants', 'contexts'],
    ),
    generated: {
      type: 'array',
      items: closed(
        {
          name: str,
          description: str,
          inputSchema: {},
          source: str,
          sha256: str,
          smokeTested: { type: 'boolean' },
          approvedBy: str,
          status: { type: 'string', enum: ['active', 'disabled'] },
        },
        ['name', 'description', 'source', 'sha256', 'smokeTested', 'approvedBy', 'status'],
      ),
    },
  },
};

/** Checks a parsed L2 snapshot's shape, closed at every level. */
export const validSnapshot = new Ajv({ strict: false, allErrors: false }).compile(
  snapshotSchema as unknown as JSONSchemaType<CatalogSnapshot>,
);
