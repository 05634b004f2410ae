/**
 * The evaluation catalog: 9 business contexts x 7 measures x 6 dimensions x 3 shapes
 * (by one dimension, by two, by one per month) = 1,134 reports, generated deterministically
 * (no randomness: the same code gives the same catalog). Near-duplicates are built in:
 * "Revenue by region", "Revenue by region and channel" and "Revenue by region per month"
 * all exist, as do measures that share words across contexts ("orders" in sales,
 * purchasing and logistics).
 *
 * Written before the ranking was built; see eval/RESULTS.md.
 */

export interface EvalFilter {
  name: string;
  type: 'enum' | 'date_range';
  description: string;
  enumValues: string[] | null;
}

export interface EvalField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'date';
  description: string;
}

export interface EvalReport {
  id: string;
  name: string;
  description: string;
  category: string;
  context: string;
  filters: EvalFilter[];
  fields: EvalField[];
  /** authored per report (here per measure), as an author would add them */
  synonyms: string[];
  exampleQuestions: string[];
}

interface Measure {
  id: string;
  name: string;
  /** what it counts, in the author's words */
  about: string;
  unit: EvalField['type'];
  synonyms?: string[];
  example?: string;
}

interface Dimension {
  id: string;
  label: string;
  description: string;
  values: string[];
}

interface Context {
  name: string;
  category: string;
  measures: Measure[];
  dimensions: Dimension[];
}

const dim = (id: string, label: string, description: string, values: string[]): Dimension => ({
  id,
  label,
  description,
  values,
});

export const CONTEXTS: Context[] = [
  {
    name: 'SALES',
    category: 'sales',
    measures: [
      {
        id: 'revenue',
        name: 'Revenue',
        about: 'total invoiced sales revenue, net of discounts',
        unit: 'number',
        synonyms: ['turnover', 'takings'],
      },
      {
        id: 'order_count',
        name: 'Order count',
        about: 'number of customer orders placed',
        unit: 'integer',
      },
      {
        id: 'avg_order_value',
        name: 'Average order value',
        about: 'mean value of a customer order (AOV)',
        unit: 'number',
        synonyms: ['basket size'],
      },
      {
        id: 'units_sold',
        name: 'Units sold',
        about: 'quantity of items sold to customers',
        unit: 'integer',
        synonyms: ['volume'],
      },
      {
        id: 'discounts',
        name: 'Discounts given',
        about: 'total discount amount granted on orders',
        unit: 'number',
        synonyms: ['markdowns', 'rebates'],
      },
      {
        id: 'win_rate',
        name: 'Deal win rate',
        about: 'share of sales opportunities closed as won in the pipeline',
        unit: 'number',
        synonyms: ['close rate', 'conversion of deals'],
      },
      {
        id: 'new_customers',
        name: 'New customers',
        about: 'customers who placed their first order',
        unit: 'integer',
        synonyms: ['first-time buyers', 'acquisitions'],
      },
    ],
    dimensions: [
      dim('region', 'region', 'sales region', ['east', 'west', 'north', 'south']),
      dim('channel', 'channel', 'sales channel', ['online', 'retail', 'partner', 'direct']),
      dim('product_category', 'product category', 'product category', [
        'hardware',
        'software',
        'services',
        'accessories',
      ]),
      dim('segment', 'customer segment', 'customer segment', ['enterprise', 'smb', 'consumer']),
      dim('sales_rep', 'sales rep', 'account executive who owns the order', [
        'team_a',
        'team_b',
        'team_c',
      ]),
      dim('country', 'country', 'customer country', ['us', 'uk', 'de', 'fr', 'jp']),
    ],
  },
  {
    name: 'FINANCE',
    category: 'finance',
    measures: [
      {
        id: 'operating_expenses',
        name: 'Operating expenses',
        about: 'operating expenditure booked in the general ledger (OPEX)',
        unit: 'number',
        synonyms: ['opex', 'spend', 'costs'],
      },
      {
        id: 'gross_margin',
        name: 'Gross margin',
        about: 'revenue minus cost of goods sold, as amount and percent',
        unit: 'number',
        synonyms: ['gross profit'],
      },
      {
        id: 'accounts_receivable',
        name: 'Accounts receivable',
        about: 'open customer invoices not yet paid, with ageing',
        unit: 'number',
        synonyms: ['receivables', 'unpaid invoices', 'outstanding invoices'],
      },
      {
        id: 'accounts_payable',
        name: 'Accounts payable',
        about: 'supplier invoices the company still has to pay',
        unit: 'number',
        synonyms: ['payables', 'bills to pay'],
      },
      {
        id: 'budget_variance',
        name: 'Budget variance',
        about: 'actual spend against budget, difference and percent',
        unit: 'number',
        synonyms: ['budget vs actual', 'over budget'],
      },
      {
        id: 'cash_flow',
        name: 'Cash flow',
        about: 'cash in and out from operations',
        unit: 'number',
        synonyms: ['cash position', 'liquidity'],
      },
      {
        id: 'ebitda',
        name: 'EBITDA',
        about: 'earnings before interest, taxes, depreciation and amortisation',
        unit: 'number',
        synonyms: ['operating profit', 'earnings'],
      },
    ],
    dimensions: [
      dim('cost_center', 'cost center', 'cost center in the ledger', [
        'cc100',
        'cc200',
        'cc300',
        'cc400',
      ]),
      dim('business_unit', 'business unit', 'business unit', [
        'consumer',
        'enterprise',
        'services',
      ]),
      dim('legal_entity', 'legal entity', 'legal entity of the group', [
        'us_inc',
        'uk_ltd',
        'de_gmbh',
      ]),
      dim('account', 'GL account', 'general ledger account', [
        'travel',
        'salaries',
        'rent',
        'software',
        'marketing',
      ]),
      dim('currency', 'currency', 'transaction currency', ['usd', 'eur', 'gbp']),
      dim('fiscal_quarter', 'fiscal quarter', 'fiscal quarter', ['q1', 'q2', 'q3', 'q4']),
    ],
  },
  {
    name: 'HR',
    category: 'people',
    measures: [
      {
        id: 'headcount',
        name: 'Headcount',
        about: 'number of active employees at the end of the period',
        unit: 'integer',
        synonyms: ['staff numbers', 'FTE'],
      },
      {
        id: 'attrition',
        name: 'Attrition',
        about: 'employee leavers and attrition rate (voluntary and involuntary terminations)',
        unit: 'number',
        synonyms: ['turnover', 'leavers', 'terminations'],
      },
      {
        id: 'hires',
        name: 'New hires',
        about: 'employees who started in the period',
        unit: 'integer',
        synonyms: ['onboarded employees', 'starters'],
      },
      {
        id: 'time_to_hire',
        name: 'Time to hire',
        about: 'days from job requisition opened to offer accepted',
        unit: 'number',
        synonyms: ['recruiting speed'],
      },
      {
        id: 'absenteeism',
        name: 'Absenteeism',
        about: 'sick days and unplanned absence rate of employees',
        unit: 'number',
        synonyms: ['sick leave', 'absence'],
      },
      {
        id: 'payroll_cost',
        name: 'Payroll cost',
        about: 'total salaries, bonuses and employer contributions paid',
        unit: 'number',
        synonyms: ['salary cost', 'compensation'],
      },
      {
        id: 'training_hours',
        name: 'Training hours',
        about: 'learning and training hours completed by employees',
        unit: 'number',
        synonyms: ['learning', 'courses'],
      },
    ],
    dimensions: [
      dim('department', 'department', 'employee department', [
        'engineering',
        'sales',
        'finance',
        'operations',
        'marketing',
      ]),
      dim('location', 'office location', 'office location', [
        'london',
        'new_york',
        'berlin',
        'remote',
      ]),
      dim('job_level', 'job level', 'job level or grade', ['junior', 'mid', 'senior', 'manager']),
      dim('gender', 'gender', 'employee gender as recorded', ['female', 'male', 'other']),
      dim('tenure_band', 'tenure band', 'years with the company', ['lt1', '1to3', '3to5', 'gt5']),
      dim('employment_type', 'employment type', 'full-time, part-time or contractor', [
        'full_time',
        'part_time',
        'contractor',
      ]),
    ],
  },
  {
    name: 'MARKETING',
    category: 'marketing',
    measures: [
      {
        id: 'campaign_spend',
        name: 'Campaign spend',
        about: 'money spent on marketing campaigns and ads',
        unit: 'number',
        synonyms: ['ad spend', 'advertising budget'],
      },
      {
        id: 'leads',
        name: 'Leads generated',
        about: 'marketing qualified leads (MQL) captured',
        unit: 'integer',
        synonyms: ['prospects', 'sign-ups'],
      },
      {
        id: 'cost_per_lead',
        name: 'Cost per lead',
        about: 'campaign spend divided by leads (CPL)',
        unit: 'number',
      },
      {
        id: 'click_through_rate',
        name: 'Click-through rate',
        about: 'clicks divided by ad impressions (CTR)',
        unit: 'number',
        synonyms: ['CTR'],
      },
      {
        id: 'email_open_rate',
        name: 'Email open rate',
        about: 'share of marketing emails opened by recipients',
        unit: 'number',
        synonyms: ['newsletter opens'],
      },
      {
        id: 'website_traffic',
        name: 'Website traffic',
        about: 'visits and unique visitors to the website',
        unit: 'integer',
        synonyms: ['visitors', 'sessions', 'page views'],
      },
      {
        id: 'marketing_roi',
        name: 'Marketing ROI',
        about: 'attributed revenue returned per unit of campaign spend',
        unit: 'number',
        synonyms: ['return on ad spend', 'ROAS'],
      },
    ],
    dimensions: [
      dim('campaign', 'campaign', 'marketing campaign', [
        'spring_launch',
        'black_friday',
        'brand',
        'retargeting',
      ]),
      dim('marketing_channel', 'marketing channel', 'paid search, social, email, display', [
        'search',
        'social',
        'email',
        'display',
      ]),
      dim('audience', 'audience', 'target audience', ['new', 'returning', 'lapsed']),
      dim('device', 'device', 'visitor device', ['desktop', 'mobile', 'tablet']),
      dim('landing_page', 'landing page', 'landing page', ['home', 'pricing', 'blog', 'product']),
      dim('market', 'market', 'geographic market', ['na', 'emea', 'apac', 'latam']),
    ],
  },
  {
    name: 'SUPPORT',
    category: 'support',
    measures: [
      {
        id: 'ticket_volume',
        name: 'Ticket volume',
        about: 'customer support tickets opened',
        unit: 'integer',
        synonyms: ['cases', 'requests', 'complaints'],
      },
      {
        id: 'first_response_time',
        name: 'First response time',
        about: 'hours until the first agent reply to a ticket',
        unit: 'number',
        synonyms: ['response time'],
      },
      {
        id: 'resolution_time',
        name: 'Resolution time',
        about: 'hours from ticket opened to solved',
        unit: 'number',
        synonyms: ['time to resolve', 'handle time'],
      },
      {
        id: 'csat',
        name: 'Customer satisfaction (CSAT)',
        about: 'customer satisfaction survey score after a ticket is solved',
        unit: 'number',
        synonyms: ['satisfaction score', 'happiness'],
      },
      {
        id: 'backlog',
        name: 'Ticket backlog',
        about: 'open tickets not yet solved',
        unit: 'integer',
        synonyms: ['open tickets', 'queue'],
      },
      {
        id: 'sla_breaches',
        name: 'SLA breaches',
        about: 'tickets that missed their service level agreement target',
        unit: 'integer',
        synonyms: ['missed SLA'],
      },
      {
        id: 'escalations',
        name: 'Escalations',
        about: 'tickets escalated to a second level or engineering',
        unit: 'integer',
      },
    ],
    dimensions: [
      dim('support_channel', 'support channel', 'how the customer reached support', [
        'email',
        'chat',
        'phone',
        'web_form',
      ]),
      dim('priority', 'priority', 'ticket priority', ['low', 'normal', 'high', 'urgent']),
      dim('agent_team', 'agent team', 'support team', ['tier1', 'tier2', 'billing', 'technical']),
      dim('issue_type', 'issue type', 'ticket topic', [
        'billing',
        'login',
        'bug',
        'shipping',
        'refund',
      ]),
      dim('customer_tier', 'customer tier', 'support plan of the customer', [
        'free',
        'standard',
        'premium',
      ]),
      dim('product_line', 'product line', 'product the ticket is about', [
        'app',
        'platform',
        'devices',
      ]),
    ],
  },
  {
    name: 'INVENTORY',
    category: 'inventory',
    measures: [
      {
        id: 'stock_on_hand',
        name: 'Stock on hand',
        about: 'units in stock per item at the end of the day',
        unit: 'integer',
        synonyms: ['inventory level', 'quantity available'],
      },
      {
        id: 'stockouts',
        name: 'Stockouts',
        about: 'items that ran out of stock and days out of stock',
        unit: 'integer',
        synonyms: ['out of stock', 'sold out'],
      },
      {
        id: 'inventory_turnover',
        name: 'Inventory turnover',
        about: 'cost of goods sold divided by average inventory value',
        unit: 'number',
        synonyms: ['stock turns'],
      },
      {
        id: 'inventory_value',
        name: 'Inventory value',
        about: 'value of stock held at cost',
        unit: 'number',
        synonyms: ['stock value'],
      },
      {
        id: 'reorder_alerts',
        name: 'Reorder alerts',
        about: 'items below their reorder point that need replenishment',
        unit: 'integer',
        synonyms: ['low stock', 'replenishment needed'],
      },
      {
        id: 'shrinkage',
        name: 'Shrinkage',
        about: 'stock lost to damage, theft or counting errors',
        unit: 'number',
        synonyms: ['write-offs', 'losses'],
      },
      {
        id: 'days_of_supply',
        name: 'Days of supply',
        about: 'how many days current stock lasts at the recent sales rate',
        unit: 'number',
        synonyms: ['coverage'],
      },
    ],
    dimensions: [
      dim('warehouse', 'warehouse', 'warehouse holding the stock', ['main', 'north', 'south']),
      dim('sku_category', 'item category', 'category of the stock keeping unit', [
        'hardware',
        'accessories',
        'spare_parts',
      ]),
      dim('supplier', 'supplier', 'supplier of the item', [
        'acme_supply',
        'globex_parts',
        'initech',
      ]),
      dim('abc_class', 'ABC class', 'ABC classification of the item by value', ['a', 'b', 'c']),
      dim('bin_zone', 'storage zone', 'zone within the warehouse', ['bulk', 'pick', 'cold']),
      dim('brand', 'brand', 'item brand', ['house', 'premium', 'value']),
    ],
  },
  {
    name: 'LOGISTICS',
    category: 'logistics',
    measures: [
      {
        id: 'shipments',
        name: 'Shipments',
        about: 'parcels and pallets shipped to customers',
        unit: 'integer',
        synonyms: ['deliveries sent', 'dispatches'],
      },
      {
        id: 'on_time_delivery',
        name: 'On-time delivery rate',
        about: 'share of shipments delivered by the promised date',
        unit: 'number',
        synonyms: ['OTD', 'late deliveries'],
      },
      {
        id: 'freight_cost',
        name: 'Freight cost',
        about: 'transport and shipping cost paid to carriers',
        unit: 'number',
        synonyms: ['shipping cost', 'transport cost'],
      },
      {
        id: 'delivery_time',
        name: 'Delivery lead time',
        about: 'days from order dispatch to delivery at the customer',
        unit: 'number',
        synonyms: ['transit time'],
      },
      {
        id: 'returns_processed',
        name: 'Returns processed',
        about: 'customer returns received back at the warehouse',
        unit: 'integer',
        synonyms: ['RMA', 'sent back'],
      },
      {
        id: 'damaged_shipments',
        name: 'Damaged shipments',
        about: 'shipments that arrived damaged and claims filed',
        unit: 'integer',
        synonyms: ['breakage'],
      },
      {
        id: 'fulfillment_time',
        name: 'Order fulfillment time',
        about: 'hours from order received to packed and dispatched',
        unit: 'number',
        synonyms: ['pick and pack time'],
      },
    ],
    dimensions: [
      dim('carrier', 'carrier', 'transport carrier', ['ups', 'dhl', 'fedex', 'postal']),
      dim('route', 'route', 'shipping lane', ['domestic', 'eu', 'transatlantic', 'asia']),
      dim('ship_mode', 'shipping mode', 'shipping service level', ['ground', 'express', 'freight']),
      dim('dc', 'distribution center', 'distribution center that shipped', [
        'dc_east',
        'dc_west',
        'dc_central',
      ]),
      dim('dest_country', 'destination country', 'country shipped to', [
        'us',
        'uk',
        'de',
        'fr',
        'jp',
      ]),
      dim('package_size', 'package size', 'parcel size class', [
        'small',
        'medium',
        'large',
        'pallet',
      ]),
    ],
  },
  {
    name: 'PROCUREMENT',
    category: 'procurement',
    measures: [
      {
        id: 'purchase_spend',
        name: 'Purchase spend',
        about: 'money spent on purchase orders with suppliers',
        unit: 'number',
        synonyms: ['procurement spend', 'buying'],
      },
      {
        id: 'purchase_orders',
        name: 'Purchase orders',
        about: 'number of purchase orders (POs) raised',
        unit: 'integer',
        synonyms: ['POs'],
      },
      {
        id: 'supplier_lead_time',
        name: 'Supplier lead time',
        about: 'days from purchase order to goods received',
        unit: 'number',
        synonyms: ['vendor delivery time'],
      },
      {
        id: 'supplier_defect_rate',
        name: 'Supplier defect rate',
        about: 'share of received goods rejected at inspection',
        unit: 'number',
        synonyms: ['quality issues', 'rejects'],
      },
      {
        id: 'savings',
        name: 'Procurement savings',
        about: 'negotiated savings against list price',
        unit: 'number',
        synonyms: ['cost savings', 'negotiated discounts'],
      },
      {
        id: 'contract_coverage',
        name: 'Contract coverage',
        about: 'share of spend under a supplier contract',
        unit: 'number',
        synonyms: ['maverick spend', 'off-contract spend'],
      },
      {
        id: 'invoice_match_rate',
        name: 'Invoice match rate',
        about: 'supplier invoices that match their PO and receipt (three-way match)',
        unit: 'number',
      },
    ],
    dimensions: [
      dim('vendor', 'vendor', 'supplier or vendor', [
        'acme_supply',
        'globex_parts',
        'initech',
        'umbrella',
      ]),
      dim('spend_category', 'spend category', 'procurement category', [
        'it',
        'facilities',
        'raw_materials',
        'services',
      ]),
      dim('buyer', 'buyer', 'purchasing agent', ['team_a', 'team_b']),
      dim('plant', 'plant', 'receiving plant or site', ['plant_1', 'plant_2', 'plant_3']),
      dim('contract_type', 'contract type', 'contract type', ['framework', 'spot', 'tender']),
      dim('payment_terms', 'payment terms', 'agreed payment terms', ['net30', 'net60', 'net90']),
    ],
  },
  {
    name: 'PRODUCT',
    category: 'product_analytics',
    measures: [
      {
        id: 'active_users',
        name: 'Active users',
        about: 'daily and monthly active users of the app (DAU, MAU)',
        unit: 'integer',
        synonyms: ['DAU', 'MAU', 'usage'],
      },
      {
        id: 'feature_adoption',
        name: 'Feature adoption',
        about: 'share of active users who used a feature',
        unit: 'number',
        synonyms: ['feature usage'],
      },
      {
        id: 'user_retention',
        name: 'User retention',
        about: 'share of new users still active after 30 days, by signup cohort',
        unit: 'number',
        synonyms: ['cohort retention', 'stickiness'],
      },
      {
        id: 'churn',
        name: 'Subscription churn',
        about: 'subscribers who cancelled their subscription',
        unit: 'number',
        synonyms: ['cancellations', 'lost subscribers'],
      },
      {
        id: 'session_length',
        name: 'Session length',
        about: 'average minutes per user session in the app',
        unit: 'number',
        synonyms: ['time in app', 'engagement'],
      },
      {
        id: 'crash_rate',
        name: 'Crash rate',
        about: 'app crashes per thousand sessions',
        unit: 'number',
        synonyms: ['stability', 'errors'],
      },
      {
        id: 'signups',
        name: 'Signups',
        about: 'new accounts registered',
        unit: 'integer',
        synonyms: ['registrations', 'new accounts'],
      },
    ],
    dimensions: [
      dim('platform', 'platform', 'client platform', ['ios', 'android', 'web']),
      dim('plan', 'plan', 'subscription plan', ['free', 'pro', 'team', 'enterprise']),
      dim('app_version', 'app version', 'release of the app', ['v1', 'v2', 'v3']),
      dim('acquisition_source', 'acquisition source', 'where the user came from', [
        'organic',
        'paid',
        'referral',
      ]),
      dim('feature', 'feature', 'product feature', ['search', 'export', 'sharing', 'dashboards']),
      dim('user_country', 'user country', 'country of the user', ['us', 'uk', 'de', 'fr', 'jp']),
    ],
  },
];

function filtersFor(dims: Dimension[]): EvalFilter[] {
  return [
    ...dims.map((d) => ({
      name: d.id,
      type: 'enum' as const,
      description: `only this ${d.description}`,
      enumValues: d.values,
    })),
    { name: 'period', type: 'date_range', description: 'the dates to cover', enumValues: null },
  ];
}

function fieldsFor(measure: Measure, dims: Dimension[], monthly: boolean): EvalField[] {
  return [
    ...(monthly
      ? [{ name: 'month', type: 'date' as const, description: 'first day of the month' }]
      : []),
    ...dims.map((d) => ({ name: d.id, type: 'string' as const, description: d.description })),
    { name: measure.id, type: measure.unit, description: measure.about },
  ];
}

function report(
  context: Context,
  measure: Measure,
  dims: Dimension[],
  monthly: boolean,
): EvalReport {
  const by = dims.map((d) => d.label).join(' and ');
  const idBy = dims.map((d) => d.id).join('_');
  const id = `${measure.id}_by_${idBy}${monthly ? '_monthly' : ''}`.slice(0, 51);
  const name = `${measure.name} by ${by}${monthly ? ' per month' : ''}`;
  const split = dims.map((d) => `per ${d.description}`).join(' and ');
  const trend = monthly ? ' Month by month, to see the trend over time.' : '';
  return {
    id,
    name,
    description: `${measure.name}: ${measure.about}, ${split}.${trend}`,
    category: context.category,
    context: context.name,
    filters: filtersFor(dims),
    fields: fieldsFor(measure, dims, monthly),
    synonyms: measure.synonyms ?? [],
    exampleQuestions: measure.example ? [measure.example] : [],
  };
}

/** Every report of the evaluation catalog, in a stable order. */
export function evalCatalog(): EvalReport[] {
  const out: EvalReport[] = [];
  for (const context of CONTEXTS) {
    for (const measure of context.measures) {
      context.dimensions.forEach((d, i) => {
        const next = context.dimensions[(i + 1) % context.dimensions.length];
        out.push(report(context, measure, [d], false));
        out.push(report(context, measure, [d, next], false));
        out.push(report(context, measure, [d], true));
      });
    }
  }
  return out;
}
