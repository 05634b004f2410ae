import { ORDER_REPORTS } from './reports-orders';
import { STOCK_AND_FIELD_REPORTS } from './reports-stock-and-field';
import type { DemoReport } from './demo-report';

export type { DemoFilter, DemoReport } from './demo-report';

/**
 * The demo catalog: the same report set for every demo tenant, over that tenant's own
 * data. Tests and the README rely on these facts (names, categories, grants, contexts).
 */
export const DEMO_REPORTS: DemoReport[] = [...ORDER_REPORTS, ...STOCK_AND_FIELD_REPORTS];

export const DEMO_CONTEXTS: Array<{ name: string; description: string; categories: string[] }> = [
  {
    name: 'SALES',
    description: 'selling: orders, customers, regions',
    categories: ['sales', 'field_sales'],
  },
  { name: 'FINANCE', description: 'revenue and order value', categories: ['finance'] },
  { name: 'INVENTORY', description: 'products and stock', categories: ['inventory'] },
];

export const DEMO_ROLES: Array<{
  name: string;
  description: string;
  is_admin?: boolean;
  categories?: string[];
  reports?: string[];
}> = [
  {
    name: 'analyst',
    description: 'sales and inventory analysis',
    categories: ['sales', 'inventory'],
  },
  {
    name: 'finance',
    description: 'finance team',
    categories: ['finance'],
    reports: ['sales_by_region'],
  },
  {
    name: 'sales_rep',
    description: 'field sales, own region and own orders',
    categories: ['field_sales'],
  },
  { name: 'admin', description: 'sees every report of the tenant', is_admin: true },
  { name: 'tool_author', description: 'may propose new tools through meta_tool' },
  { name: 'tool_reviewer', description: 'approves or rejects meta_tool proposals' },
];

export const DEMO_TABLES = ['customers', 'products', 'orders', 'order_items', 'inventory'];

export const DEMO_TENANTS: Array<{ id: string; name: string; orders: number; salt: number }> = [
  { id: 'acme', name: 'Acme Corp', orders: 50_000, salt: 1 },
  { id: 'globex', name: 'Globex Inc', orders: 30_000, salt: 7 },
];
