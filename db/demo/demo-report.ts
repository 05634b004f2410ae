import type { FieldTypeName, FilterTypeName } from '../database';

/** A filter of a demo report, as the seed writes it to report_filters. */
export interface DemoFilter {
  name: string;
  type: FilterTypeName;
  description: string;
  required?: boolean;
  enum_values?: string[];
  default_value?: unknown;
}

export interface DemoReport {
  id: string;
  name: string;
  category: string;
  description: string;
  sql: string;
  filters: DemoFilter[];
  fields: Array<[name: string, type: FieldTypeName, description: string]>;
}

/** The filters and the SQL clause several demo reports share. */
export const REGION: DemoFilter = {
  name: 'region',
  type: 'enum',
  description: 'sales region',
  enum_values: ['east', 'west', 'north', 'south'],
};
export const ORDER_DATE: DemoFilter = {
  name: 'order_date',
  type: 'date_range',
  description: 'order date range, inclusive',
};
export const ORDER_DATE_CLAUSE = `(:order_date_start IS NULL OR o.order_date >= :order_date_start)
  AND (:order_date_end IS NULL OR o.order_date <= :order_date_end)`;
