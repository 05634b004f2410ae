/**
 * Questions as users ask them, each with the report(s) that answer it (any one counts).
 * Written before the ranking was built, from the catalog's subject matter only, in users'
 * own words: paraphrases, misspellings, continuations of an earlier turn, and in both the
 * OpenAI and the Anthropic message shapes. Every third question (index % 3 === 2) is held
 * out: it was not looked at while the ranking was tuned (eval/RESULTS.md reports both parts).
 */

export type EvalMessage =
  | {
      role: 'system' | 'user' | 'assistant' | 'tool';
      content: unknown;
      tool_calls?: unknown;
      tool_call_id?: string;
    }
  | { role: 'user' | 'assistant'; content: unknown };

export interface EvalQuestion {
  id: string;
  split: 'dev' | 'heldout';
  messages: EvalMessage[];
  answers: string[];
}

type Draft = { messages: EvalMessage[]; answers: string[] };

const q = (text: string, ...answers: string[]): Draft => ({
  messages: [{ role: 'user', content: text }],
  answers,
});

/** An earlier turn answered with a tool call (OpenAI shape), then the follow-up. */
const followUp = (first: string, firstTool: string, next: string, ...answers: string[]): Draft => ({
  messages: [
    { role: 'user', content: first },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: `query_report_${firstTool}`, arguments: '{}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"rows":[]}' },
    { role: 'assistant', content: 'Here are the figures.' },
    { role: 'user', content: next },
  ],
  answers,
});

/** The same in the Anthropic shape (content blocks, tool_use / tool_result). */
const followUpAnthropic = (
  first: string,
  firstTool: string,
  next: string,
  ...answers: string[]
): Draft => ({
  messages: [
    { role: 'user', content: [{ type: 'text', text: first }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: 'tu_1', name: `query_report_${firstTool}`, input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '[]' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    { role: 'user', content: [{ type: 'text', text: next }] },
  ],
  answers,
});

const DRAFTS: Draft[] = [
  // SALES
  q('What was our revenue in each region last quarter?', 'revenue_by_region'),
  q('how much did we sell online vs in retail stores', 'revenue_by_channel'),
  q('revenue split by region and channel for 2025', 'revenue_by_region_channel'),
  q('Show me the monthly revenue trend for the west region', 'revenue_by_region_monthly'),
  q('how many orders did each sales rep bring in', 'order_count_by_sales_rep'),
  q('whats the average basket value for enterprise vs smb customers', 'avg_order_value_by_segment'),
  q('avg order vaule per country', 'avg_order_value_by_country'),
  q('How many units of hardware did we sell?', 'units_sold_by_product_category'),
  q('which product categories are we discounting the most', 'discounts_by_product_category'),
  q('deal win rate by sales team', 'win_rate_by_sales_rep'),
  q('How many first time buyers did we get in Germany and France?', 'new_customers_by_country'),
  q('new customer acquisition per region, month by month', 'new_customers_by_region_monthly'),
  q('total sales by customer segment and rep', 'revenue_by_segment_sales_rep'),
  q('are we closing more deals in some regions than others?', 'win_rate_by_region'),
  q('number of orders per channel over time', 'order_count_by_channel_monthly'),
  q('how much discount did partners get', 'discounts_by_channel'),
  q('revenu by contry', 'revenue_by_country'),
  q('units sold per month by channel', 'units_sold_by_channel_monthly'),
  // FINANCE
  q('What are our operating expenses by cost center?', 'operating_expenses_by_cost_center'),
  q('how much did we spend on travel last year', 'operating_expenses_by_account'),
  q('gross margin for each business unit', 'gross_margin_by_business_unit'),
  q(
    'who still owes us money? unpaid invoices by legal entity',
    'accounts_receivable_by_legal_entity',
  ),
  q('what bills do we still have to pay, per currency', 'accounts_payable_by_currency'),
  q('Are any cost centers over budget?', 'budget_variance_by_cost_center'),
  q(
    'budget vs actual for each business unit per month',
    'budget_variance_by_business_unit_monthly',
  ),
  q('cash flow by quarter', 'cash_flow_by_fiscal_quarter'),
  q('EBITDA per legal entity', 'ebitda_by_legal_entity'),
  q('show opex per GL account in each currency', 'operating_expenses_by_account_currency'),
  q('gross proffit by quarter', 'gross_margin_by_fiscal_quarter'),
  q(
    'how is our liquidity developing month over month per entity',
    'cash_flow_by_legal_entity_monthly',
  ),
  q('receivables ageing per business unit', 'accounts_receivable_by_business_unit'),
  q('operating profit by business unit and entity', 'ebitda_by_business_unit_legal_entity'),
  q(
    'How much are we paying in salaries according to the ledger, per cost center',
    'operating_expenses_by_cost_center',
    'operating_expenses_by_account',
  ),
  q('payables in euros and pounds by quarter', 'accounts_payable_by_currency_fiscal_quarter'),
  // HR
  q('how many people quit last year in engineering', 'attrition_by_department'),
  q('What is our headcount per department?', 'headcount_by_department'),
  q('how many employees do we have in each office', 'headcount_by_location'),
  q('staff turnover by office', 'attrition_by_location'),
  q('how many people did we hire this quarter by department', 'hires_by_department'),
  q('how long does it take us to fill a position, by job level', 'time_to_hire_by_job_level'),
  q('Who is calling in sick the most? absence by department', 'absenteeism_by_department'),
  q('total salary cost per department', 'payroll_cost_by_department'),
  q('training hours completed by seniority', 'training_hours_by_job_level'),
  q('gender split of our workforce by job level', 'headcount_by_job_level_gender'),
  q('are contractors leaving more than full-time staff?', 'attrition_by_employment_type'),
  q('how many new joiners each month per location', 'hires_by_location_monthly'),
  q('headcout by tenure', 'headcount_by_tenure_band'),
  q('payroll by employment type and department', 'payroll_cost_by_employment_type_department'),
  q('do people with less than a year tenure resign more', 'attrition_by_tenure_band'),
  q('sick leave trend by office month by month', 'absenteeism_by_location_monthly'),
  q('How many engineers work remotely?', 'headcount_by_department_location'),
  q('recruiting speed in berlin vs london', 'time_to_hire_by_location'),
  // MARKETING
  q('how much did we spend on ads per campaign', 'campaign_spend_by_campaign'),
  q('which marketing channel gives us the most leads', 'leads_by_marketing_channel'),
  q('cost per lead for each campaign', 'cost_per_lead_by_campaign'),
  q('CTR on mobile vs desktop', 'click_through_rate_by_device'),
  q('How many people open our newsletters, by audience', 'email_open_rate_by_audience'),
  q('website visitors per landing page', 'website_traffic_by_landing_page'),
  q('return on ad spend by channel', 'marketing_roi_by_marketing_channel'),
  q('lead generation in emea and apac', 'leads_by_market'),
  q('web traffic by device every month', 'website_traffic_by_device_monthly'),
  q('click through rate per landing page and market', 'click_through_rate_by_landing_page_market'),
  q('was the black friday campaign worth the money?', 'marketing_roi_by_campaign'),
  q('ad spend by market and campaign', 'campaign_spend_by_market_campaign'),
  q('how many leads did each campaign bring per month', 'leads_by_campaign_monthly'),
  q('which pages do people land on most from mobile', 'website_traffic_by_device_landing_page'),
  q('markting spend per channel', 'campaign_spend_by_marketing_channel'),
  q('CPL by audience', 'cost_per_lead_by_audience'),
  // SUPPORT
  q('how many support tickets did we get per channel', 'ticket_volume_by_support_channel'),
  q('how fast do we answer customers on chat vs email', 'first_response_time_by_support_channel'),
  q('average time to resolve urgent tickets', 'resolution_time_by_priority'),
  q('customer satisfaction by support team', 'csat_by_agent_team'),
  q('how big is the queue of open tickets per team', 'backlog_by_agent_team'),
  q('how many tickets missed the SLA by priority', 'sla_breaches_by_priority'),
  q(
    'how often do tickets get escalated to engineering, by issue type',
    'escalations_by_issue_type',
  ),
  q('complaints about billing per month', 'ticket_volume_by_issue_type_monthly'),
  q('are premium customers happier with support?', 'csat_by_customer_tier'),
  q('open ticket backlog by product', 'backlog_by_product_line'),
  q('resolution time per team and issue type', 'resolution_time_by_agent_team_issue_type'),
  q('customer satisfation score trend per channel', 'csat_by_support_channel_monthly'),
  q(
    'number of refund requests from premium customers',
    'ticket_volume_by_issue_type_customer_tier',
  ),
  q('SLA misses per support team', 'sla_breaches_by_agent_team'),
  q('first reply time for each priority level', 'first_response_time_by_priority'),
  q('how many login problems did we have', 'ticket_volume_by_issue_type'),
  // INVENTORY
  q('how much stock do we have in each warehouse', 'stock_on_hand_by_warehouse'),
  q('which items are out of stock, by category', 'stockouts_by_sku_category'),
  q('inventory turnover per supplier', 'inventory_turnover_by_supplier'),
  q('what is our inventory worth in each warehouse', 'inventory_value_by_warehouse'),
  q('items we need to reorder, per warehouse', 'reorder_alerts_by_warehouse'),
  q(
    'How much stock did we lose to theft or damage?',
    'shrinkage_by_warehouse',
    'shrinkage_by_bin_zone',
  ),
  q('how many days of stock do we have left for A items', 'days_of_supply_by_abc_class'),
  q('low stock by brand', 'reorder_alerts_by_brand'),
  q('stock levels per item category over the last months', 'stock_on_hand_by_sku_category_monthly'),
  q('value of stock held by ABC class and storage zone', 'inventory_value_by_abc_class_bin_zone'),
  q('shrinkge in the cold zone', 'shrinkage_by_bin_zone'),
  q(
    'how fast are premium brand items selling through (stock turns)',
    'inventory_turnover_by_brand',
  ),
  q('stockouts by supplier each month', 'stockouts_by_supplier_monthly'),
  q(
    'how much inventory do we hold from each supplier by class',
    'stock_on_hand_by_supplier_abc_class',
    'inventory_value_by_supplier_abc_class',
  ),
  q('days of supply per warehouse and item category', 'days_of_supply_by_warehouse_sku_category'),
  q('write-offs per brand', 'shrinkage_by_brand'),
  // LOGISTICS
  q('how many shipments did each carrier handle', 'shipments_by_carrier'),
  q('what share of deliveries arrived late, per carrier', 'on_time_delivery_by_carrier'),
  q('shipping costs by route', 'freight_cost_by_route'),
  q('how long does delivery take to Japan', 'delivery_time_by_dest_country'),
  q('how many returns came back to each distribution center', 'returns_processed_by_dc'),
  q('damaged parcels by carrier', 'damaged_shipments_by_carrier'),
  q('how long does it take us to pick and pack orders at each DC', 'fulfillment_time_by_dc'),
  q('express vs ground shipping cost', 'freight_cost_by_ship_mode'),
  q('on-time rate per shipping mode every month', 'on_time_delivery_by_ship_mode_monthly'),
  q('transit time by carrier and route', 'delivery_time_by_carrier_route'),
  q('how many pallets did we ship', 'shipments_by_package_size'),
  q(
    'freight cost per destination country and parcel size',
    'freight_cost_by_dest_country_package_size',
  ),
  q('late deliveries into the uk', 'on_time_delivery_by_dest_country'),
  q('breakage on large packages', 'damaged_shipments_by_package_size'),
  q('returns by destination country per month', 'returns_processed_by_dest_country_monthly'),
  q('shipmnets per route', 'shipments_by_route'),
  // PROCUREMENT
  q('how much did we spend with each supplier last year', 'purchase_spend_by_vendor'),
  q('number of purchase orders raised per buyer', 'purchase_orders_by_buyer'),
  q('which vendors deliver slowest', 'supplier_lead_time_by_vendor'),
  q('defect rate of received goods by vendor', 'supplier_defect_rate_by_vendor'),
  q('how much did procurement save by spend category', 'savings_by_spend_category'),
  q('how much of our IT spend is off-contract', 'contract_coverage_by_spend_category'),
  q('three way match rate for supplier invoices by plant', 'invoice_match_rate_by_plant'),
  q('procurement spend per category and buyer', 'purchase_spend_by_spend_category_buyer'),
  q('PO count per plant by month', 'purchase_orders_by_plant_monthly'),
  q('lead times for framework vs spot contracts', 'supplier_lead_time_by_contract_type'),
  q('vendor quality problems at plant 2', 'supplier_defect_rate_by_plant'),
  q('negotiated savings per buyer', 'savings_by_buyer'),
  q('spend by payment terms', 'purchase_spend_by_payment_terms'),
  q('purchse orders per vendor', 'purchase_orders_by_vendor'),
  // PRODUCT
  q('how many daily active users do we have on ios vs android', 'active_users_by_platform'),
  q('who uses the export feature', 'feature_adoption_by_feature'),
  q('30 day retention by plan', 'user_retention_by_plan'),
  q('how many subscribers cancelled, per plan', 'churn_by_plan'),
  q('how long do people spend in the app per session, by platform', 'session_length_by_platform'),
  q('did v3 crash more than v2', 'crash_rate_by_app_version'),
  q('new signups by acquisition source', 'signups_by_acquisition_source'),
  q('MAU per country', 'active_users_by_user_country'),
  q('monthly churn by platform', 'churn_by_platform_monthly'),
  q('feature usage on each plan', 'feature_adoption_by_feature', 'feature_adoption_by_plan'),
  q('retention of users from paid vs organic channels', 'user_retention_by_acquisition_source'),
  q('registrations per country each month', 'signups_by_user_country_monthly'),
  q(
    'app stability per release and plan',
    'crash_rate_by_app_version_acquisition_source',
    'crash_rate_by_plan_app_version',
  ),
  q('how many users are on each plan and platform', 'active_users_by_platform_plan'),
  q('engagment time by feature', 'session_length_by_feature'),
  // follow-ups and multi-turn
  followUp(
    'revenue by region for Q2',
    'revenue_by_region',
    'same thing for Q3?',
    'revenue_by_region',
  ),
  followUp(
    'how many people quit in engineering',
    'attrition_by_department',
    'and what about hires?',
    'hires_by_department',
  ),
  followUp(
    'ticket volume by channel',
    'ticket_volume_by_support_channel',
    'can you break that down by month',
    'ticket_volume_by_support_channel_monthly',
  ),
  followUp(
    'shipments per carrier',
    'shipments_by_carrier',
    'now show the cost for each of them',
    'freight_cost_by_carrier',
  ),
  followUp(
    'opex by cost center',
    'operating_expenses_by_cost_center',
    'and split it by business unit too',
    'operating_expenses_by_cost_center_business_unit',
  ),
  followUp(
    'active users by platform',
    'active_users_by_platform',
    'how about churn?',
    'churn_by_platform',
  ),
  followUpAnthropic(
    'stock on hand per warehouse',
    'stock_on_hand_by_warehouse',
    'what is it worth?',
    'inventory_value_by_warehouse',
  ),
  followUpAnthropic(
    'leads per campaign',
    'leads_by_campaign',
    'and what did each one cost us per lead',
    'cost_per_lead_by_campaign',
  ),
  followUpAnthropic(
    'purchase spend by vendor',
    'purchase_spend_by_vendor',
    'same for last year please',
    'purchase_spend_by_vendor',
  ),
  followUpAnthropic(
    'csat by team',
    'csat_by_agent_team',
    'ok and the backlog?',
    'backlog_by_agent_team',
  ),
  followUpAnthropic(
    'headcount by department',
    'headcount_by_department',
    'now by location',
    'headcount_by_location',
    'headcount_by_department_location',
  ),
  followUpAnthropic(
    'win rate by region',
    'win_rate_by_region',
    'show me the trend month by month',
    'win_rate_by_region_monthly',
  ),
  followUp(
    'on time delivery by carrier',
    'on_time_delivery_by_carrier',
    'and damaged ones?',
    'damaged_shipments_by_carrier',
  ),
  followUp(
    'gross margin by business unit',
    'gross_margin_by_business_unit',
    'what about ebitda',
    'ebitda_by_business_unit',
  ),
  followUp(
    'signups by source',
    'signups_by_acquisition_source',
    'and retention for those?',
    'user_retention_by_acquisition_source',
  ),
  followUp(
    'How much discount did we give per region?',
    'discounts_by_region',
    'ok. and per channel?',
    'discounts_by_channel',
  ),
  followUp(
    'payroll cost per department',
    'payroll_cost_by_department',
    'per month please',
    'payroll_cost_by_department_monthly',
  ),
  followUpAnthropic(
    'sla breaches by priority',
    'sla_breaches_by_priority',
    'how many got escalated?',
    'escalations_by_priority',
  ),
];

export const QUESTIONS: EvalQuestion[] = DRAFTS.map((d, i) => ({
  id: `q${String(i + 1).padStart(3, '0')}`,
  split: i % 3 === 2 ? 'heldout' : 'dev',
  ...d,
}));
