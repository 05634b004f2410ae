/**
 * The held-out catalog: reports of ten business areas that the tuning set
 * (eval/tool-selection) does not cover, written from a brief and the report-document shape
 * only (see README.md). FROZEN: never edit to raise a score; `SPEC.sha256` makes any change
 * visible and the runner refuses to score a changed set.
 *
 * Families of near-duplicates are the point: "Scrap rate by plant", "Scrap rate by line",
 * "Scrap rate per week" answer different questions with nearly the same words.
 */

export type HeldOutFieldType = 'string' | 'number' | 'integer' | 'date';

export interface HeldOutFilter {
  name: string;
  type: 'enum' | 'date_range';
  description: string;
  enumValues: string[] | null;
}

export interface HeldOutField {
  name: string;
  type: HeldOutFieldType;
  description: string;
}

export interface HeldOutReport {
  id: string;
  /** the report family (the measure): follow-ups are expected to stay in it */
  family: string;
  name: string;
  description: string;
  category: string;
  /** the business area, upper case, as a tenant would name its contexts */
  context: string;
  filters: HeldOutFilter[];
  fields: HeldOutField[];
}

interface Dim {
  /** "by ward", "per month" */
  label: string;
  /** the sentence the author adds to the description */
  phrase: string;
  filter?: [name: string, description: string, values: string[]];
  field: [name: string, type: HeldOutFieldType, description: string];
}

interface Family {
  id: string;
  name: string;
  about: string;
  unit: HeldOutFieldType;
  measure: string;
  /** breakdowns published; 'total' is the family's plain report */
  dims: string[];
  extra?: Array<[name: string, description: string, values: string[]]>;
}

interface Area {
  context: string;
  prefix: string;
  category: string;
  dims: Record<string, Dim>;
  families: Family[];
}

const month = (what: string): Dim => ({
  label: 'per month',
  phrase: `One row per calendar month, to follow the trend of ${what} over time.`,
  field: ['month', 'date', 'First day of the month'],
});
const week = (what: string): Dim => ({
  label: 'per week',
  phrase: `One row per ISO week, for short-term movements in ${what}.`,
  field: ['week', 'date', 'Monday of the week'],
});
const total: Dim = {
  label: '',
  phrase: 'A single figure for the chosen period.',
  field: ['period_label', 'string', 'The period reported'],
};

const AREAS: Area[] = [
  {
    context: 'MANUFACTURING',
    prefix: 'mfg',
    category: 'operations',
    dims: {
      plant: {
        label: 'by plant',
        phrase: 'Split by production plant.',
        filter: ['plant', 'Production plant', ['lyon', 'austin', 'pune', 'monterrey']],
        field: ['plant', 'string', 'Plant name'],
      },
      line: {
        label: 'by production line',
        phrase: 'Split by production line within each plant.',
        filter: ['line', 'Production line code', ['l1', 'l2', 'l3', 'packaging']],
        field: ['line', 'string', 'Line code'],
      },
      shift: {
        label: 'by shift',
        phrase: 'Split by work shift.',
        filter: ['shift', 'Work shift', ['early', 'late', 'night', 'weekend']],
        field: ['shift', 'string', 'Shift'],
      },
      week: week('the shop floor'),
      month: month('the shop floor'),
    },
    families: [
      {
        id: 'oee',
        name: 'Overall equipment effectiveness',
        about:
          'OEE of the machines: availability times performance times quality, as a percentage of the theoretical maximum output.',
        unit: 'number',
        measure: 'oee_pct',
        dims: ['plant', 'line', 'week'],
      },
      {
        id: 'scrap',
        name: 'Scrap rate',
        about:
          'Share of produced units that were scrapped or sent to rework because they failed inspection.',
        unit: 'number',
        measure: 'scrap_pct',
        dims: ['plant', 'line', 'shift', 'month'],
        extra: [['defect_type', 'Inspection defect', ['dimensional', 'surface', 'assembly']]],
      },
      {
        id: 'downtime',
        name: 'Unplanned downtime',
        about:
          'Hours machines stood still outside the maintenance schedule, with the stoppage reason recorded by the operator.',
        unit: 'number',
        measure: 'downtime_hours',
        dims: ['plant', 'line', 'week'],
        extra: [
          [
            'reason',
            'Stoppage reason code',
            ['breakdown', 'changeover', 'material_shortage', 'no_operator'],
          ],
        ],
      },
      {
        id: 'output',
        name: 'Good units produced',
        about: 'Units that passed final inspection and were booked into finished goods.',
        unit: 'integer',
        measure: 'good_units',
        dims: ['total', 'plant', 'shift', 'month'],
      },
      {
        id: 'pm',
        name: 'Preventive maintenance compliance',
        about:
          'Share of scheduled preventive maintenance work orders completed on or before their due date.',
        unit: 'number',
        measure: 'pm_compliance_pct',
        dims: ['plant', 'month'],
      },
      {
        id: 'safety',
        name: 'Workplace safety incidents',
        about:
          'Injuries and near misses on the factory floor reported to the EHS team, by severity.',
        unit: 'integer',
        measure: 'incidents',
        dims: ['plant', 'month'],
        extra: [['severity', 'Incident severity', ['near_miss', 'first_aid', 'lost_time']]],
      },
      {
        id: 'cycle_time',
        name: 'Average cycle time',
        about:
          'Mean seconds a station needs to complete one unit, against the engineered standard.',
        unit: 'number',
        measure: 'cycle_seconds',
        dims: ['line', 'shift'],
      },
    ],
  },
  {
    context: 'CLINICAL',
    prefix: 'clin',
    category: 'care',
    dims: {
      ward: {
        label: 'by ward',
        phrase: 'Split by hospital ward.',
        filter: [
          'ward',
          'Hospital ward',
          ['cardiology', 'oncology', 'paediatrics', 'maternity', 'icu', 'orthopaedics'],
        ],
        field: ['ward', 'string', 'Ward'],
      },
      site: {
        label: 'by hospital',
        phrase: 'Split by hospital site of the group.',
        filter: ['site', 'Hospital site', ['north', 'central', 'riverside']],
        field: ['site', 'string', 'Hospital site'],
      },
      payer: {
        label: 'by payer',
        phrase: 'Split by who pays for the stay.',
        filter: ['payer', 'Payer of the episode', ['medicare', 'medicaid', 'private', 'self_pay']],
        field: ['payer', 'string', 'Payer'],
      },
      month: month('patient care'),
    },
    families: [
      {
        id: 'occupancy',
        name: 'Bed occupancy',
        about: 'Share of staffed inpatient beds occupied at midnight census.',
        unit: 'number',
        measure: 'occupancy_pct',
        dims: ['ward', 'site', 'month'],
      },
      {
        id: 'ed_wait',
        name: 'Emergency department waiting time',
        about:
          'Minutes from arrival at the emergency department to first assessment by a clinician, median and 90th percentile.',
        unit: 'number',
        measure: 'wait_minutes',
        dims: ['total', 'site', 'month'],
        extra: [['triage', 'Triage category', ['immediate', 'urgent', 'standard', 'non_urgent']]],
      },
      {
        id: 'readmit',
        name: '30-day readmission rate',
        about:
          'Share of discharged patients admitted again within 30 days for any cause, an indicator of care quality.',
        unit: 'number',
        measure: 'readmission_pct',
        dims: ['ward', 'payer', 'month'],
      },
      {
        id: 'los',
        name: 'Average length of stay',
        about: 'Mean number of days between admission and discharge of inpatients.',
        unit: 'number',
        measure: 'alos_days',
        dims: ['ward', 'site', 'payer'],
      },
      {
        id: 'surgery',
        name: 'Cancelled elective surgeries',
        about:
          'Planned operations cancelled on the day or the day before, with the reason given by the theatre team.',
        unit: 'integer',
        measure: 'cancelled_operations',
        dims: ['site', 'month'],
        extra: [
          [
            'cancel_reason',
            'Why it was cancelled',
            ['no_bed', 'surgeon_unavailable', 'patient_unfit'],
          ],
        ],
      },
      {
        id: 'no_show',
        name: 'Outpatient no-show rate',
        about: 'Share of booked outpatient appointments where the patient did not attend.',
        unit: 'number',
        measure: 'dna_pct',
        dims: ['site', 'month'],
        extra: [['clinic', 'Outpatient clinic', ['dermatology', 'cardiology', 'physiotherapy']]],
      },
      {
        id: 'med_errors',
        name: 'Medication incidents',
        about:
          'Reported errors in prescribing, dispensing or administering medicines, including those that caused no harm.',
        unit: 'integer',
        measure: 'medication_incidents',
        dims: ['ward', 'month'],
      },
      {
        id: 'satisfaction',
        name: 'Patient experience score',
        about:
          'Average answer to the discharge survey: would you recommend this hospital, 0 to 10.',
        unit: 'number',
        measure: 'experience_score',
        dims: ['ward', 'site'],
      },
    ],
  },
  {
    context: 'INSURANCE',
    prefix: 'ins',
    category: 'underwriting',
    dims: {
      lob: {
        label: 'by line of business',
        phrase: 'Split by insurance line of business.',
        filter: [
          'line_of_business',
          'Insurance product line',
          ['motor', 'home', 'life', 'travel', 'pet'],
        ],
        field: ['line_of_business', 'string', 'Line of business'],
      },
      channel: {
        label: 'by distribution channel',
        phrase: 'Split by how the policy was sold.',
        filter: [
          'channel',
          'Distribution channel',
          ['broker', 'direct', 'bancassurance', 'aggregator'],
        ],
        field: ['channel', 'string', 'Channel'],
      },
      region: {
        label: 'by region',
        phrase: 'Split by the policyholder region.',
        filter: ['region', 'Policyholder region', ['north', 'south', 'east', 'west']],
        field: ['region', 'string', 'Region'],
      },
      month: month('the portfolio'),
    },
    families: [
      {
        id: 'claims',
        name: 'Claims reported',
        about: 'Number of new claims notified by policyholders (first notice of loss).',
        unit: 'integer',
        measure: 'claims',
        dims: ['lob', 'region', 'month'],
      },
      {
        id: 'settle_time',
        name: 'Claim settlement time',
        about: 'Days from first notice of loss to the final payment of the claim.',
        unit: 'number',
        measure: 'settlement_days',
        dims: ['lob', 'month'],
        extra: [['claim_status', 'Claim status', ['open', 'settled', 'rejected', 'in_litigation']]],
      },
      {
        id: 'loss_ratio',
        name: 'Loss ratio',
        about:
          'Incurred losses divided by earned premium, the core measure of underwriting profitability.',
        unit: 'number',
        measure: 'loss_ratio',
        dims: ['lob', 'channel', 'region'],
      },
      {
        id: 'gwp',
        name: 'Gross written premium',
        about: 'Premium of policies written or renewed in the period, before reinsurance.',
        unit: 'number',
        measure: 'gwp',
        dims: ['lob', 'channel', 'month'],
      },
      {
        id: 'lapse',
        name: 'Policy lapse rate',
        about: 'Share of policies not renewed at term or cancelled mid-term by the customer.',
        unit: 'number',
        measure: 'lapse_pct',
        dims: ['lob', 'channel'],
      },
      {
        id: 'fraud',
        name: 'Suspected fraud referrals',
        about: 'Claims referred to the special investigations unit because of fraud indicators.',
        unit: 'integer',
        measure: 'referrals',
        dims: ['lob', 'month'],
      },
      {
        id: 'quotes',
        name: 'Quote to bind conversion',
        about: 'Share of quotes issued that became bound policies.',
        unit: 'number',
        measure: 'conversion_pct',
        dims: ['channel', 'month'],
      },
    ],
  },
  {
    context: 'ENERGY',
    prefix: 'nrg',
    category: 'utility',
    dims: {
      segment: {
        label: 'by customer segment',
        phrase: 'Split by customer segment.',
        filter: ['segment', 'Customer segment', ['residential', 'commercial', 'industrial']],
        field: ['segment', 'string', 'Segment'],
      },
      grid: {
        label: 'by grid zone',
        phrase: 'Split by distribution grid zone.',
        filter: ['zone', 'Grid zone', ['zone_a', 'zone_b', 'zone_c', 'islands']],
        field: ['zone', 'string', 'Grid zone'],
      },
      tariff: {
        label: 'by tariff',
        phrase: 'Split by the tariff the customer is on.',
        filter: ['tariff', 'Tariff plan', ['fixed', 'time_of_use', 'prepaid', 'green']],
        field: ['tariff', 'string', 'Tariff'],
      },
      month: month('the network'),
    },
    families: [
      {
        id: 'consumption',
        name: 'Electricity delivered',
        about:
          'Kilowatt hours delivered to customers through the distribution network, from meter reads.',
        unit: 'number',
        measure: 'kwh',
        dims: ['segment', 'grid', 'tariff', 'month'],
      },
      {
        id: 'outages',
        name: 'Supply interruptions',
        about:
          'Power cuts longer than three minutes, with customers affected and minutes lost (SAIDI, SAIFI).',
        unit: 'number',
        measure: 'customer_minutes_lost',
        dims: ['grid', 'month'],
        extra: [
          [
            'cause',
            'Cause of the interruption',
            ['storm', 'equipment_failure', 'third_party', 'planned'],
          ],
        ],
      },
      {
        id: 'meter_reads',
        name: 'Smart meter read success',
        about: 'Share of smart meters that sent a valid reading on schedule.',
        unit: 'number',
        measure: 'read_success_pct',
        dims: ['grid', 'month'],
      },
      {
        id: 'renewables',
        name: 'Renewable generation',
        about: 'Megawatt hours generated by the company’s own renewable plants.',
        unit: 'number',
        measure: 'mwh',
        dims: ['total', 'month'],
        extra: [['source', 'Generation source', ['solar', 'wind', 'hydro', 'biomass']]],
      },
      {
        id: 'peak',
        name: 'Peak demand',
        about: 'Highest half-hour load on the network in megawatts.',
        unit: 'number',
        measure: 'peak_mw',
        dims: ['grid', 'month'],
      },
      {
        id: 'arrears',
        name: 'Customer arrears',
        about: 'Unpaid energy bills past their due date, in currency and number of accounts.',
        unit: 'number',
        measure: 'arrears_amount',
        dims: ['segment', 'tariff', 'month'],
      },
      {
        id: 'connections',
        name: 'New grid connections',
        about: 'Connection requests completed for new homes, businesses and generators.',
        unit: 'integer',
        measure: 'connections',
        dims: ['segment', 'grid'],
      },
    ],
  },
  {
    context: 'HOSPITALITY',
    prefix: 'hot',
    category: 'hotels',
    dims: {
      property: {
        label: 'by hotel',
        phrase: 'Split by hotel property.',
        filter: ['property', 'Hotel', ['harbour', 'old_town', 'airport', 'mountain_lodge']],
        field: ['property', 'string', 'Hotel'],
      },
      channel: {
        label: 'by booking channel',
        phrase: 'Split by where the booking came from.',
        filter: [
          'booking_channel',
          'Booking channel',
          ['direct', 'ota', 'corporate', 'travel_agent'],
        ],
        field: ['booking_channel', 'string', 'Channel'],
      },
      room: {
        label: 'by room type',
        phrase: 'Split by room type.',
        filter: ['room_type', 'Room type', ['standard', 'deluxe', 'suite', 'family']],
        field: ['room_type', 'string', 'Room type'],
      },
      month: month('the hotels'),
    },
    families: [
      {
        id: 'occupancy',
        name: 'Room occupancy',
        about: 'Share of available room nights that were sold.',
        unit: 'number',
        measure: 'occupancy_pct',
        dims: ['property', 'room', 'month'],
      },
      {
        id: 'adr',
        name: 'Average daily rate',
        about: 'Room revenue divided by room nights sold (ADR).',
        unit: 'number',
        measure: 'adr',
        dims: ['property', 'channel', 'room'],
      },
      {
        id: 'revpar',
        name: 'Revenue per available room',
        about:
          'Room revenue divided by room nights available (RevPAR), combining price and occupancy.',
        unit: 'number',
        measure: 'revpar',
        dims: ['property', 'month'],
      },
      {
        id: 'cancellations',
        name: 'Booking cancellations',
        about: 'Reservations cancelled before arrival, and the share they are of all bookings.',
        unit: 'integer',
        measure: 'cancelled_bookings',
        dims: ['property', 'channel', 'month'],
      },
      {
        id: 'reviews',
        name: 'Guest review score',
        about: 'Average rating guests gave on review sites and the post-stay survey, out of 10.',
        unit: 'number',
        measure: 'review_score',
        dims: ['property', 'month'],
        extra: [
          [
            'review_site',
            'Where the review was left',
            ['google', 'tripadvisor', 'booking_com', 'survey'],
          ],
        ],
      },
      {
        id: 'fnb',
        name: 'Food and beverage revenue',
        about: 'Sales of the restaurants, bars, room service and banqueting.',
        unit: 'number',
        measure: 'fnb_revenue',
        dims: ['property', 'month'],
        extra: [['outlet', 'Outlet', ['restaurant', 'bar', 'room_service', 'banqueting']]],
      },
      {
        id: 'housekeeping',
        name: 'Room turnaround time',
        about: 'Minutes from guest check-out until housekeeping marks the room clean and ready.',
        unit: 'number',
        measure: 'turnaround_minutes',
        dims: ['property', 'room'],
      },
    ],
  },
  {
    context: 'EDUCATION',
    prefix: 'edu',
    category: 'academic',
    dims: {
      faculty: {
        label: 'by faculty',
        phrase: 'Split by faculty.',
        filter: ['faculty', 'Faculty', ['engineering', 'medicine', 'law', 'arts', 'business']],
        field: ['faculty', 'string', 'Faculty'],
      },
      level: {
        label: 'by study level',
        phrase: 'Split by programme level.',
        filter: ['level', 'Programme level', ['bachelor', 'master', 'doctorate']],
        field: ['level', 'string', 'Level'],
      },
      origin: {
        label: 'by student origin',
        phrase: 'Split into home and international students.',
        filter: ['origin', 'Fee status of the student', ['home', 'international']],
        field: ['origin', 'string', 'Origin'],
      },
      term: {
        label: 'per term',
        phrase: 'One row per academic term.',
        field: ['term', 'string', 'Academic term, e.g. 2025-autumn'],
      },
    },
    families: [
      {
        id: 'enrolment',
        name: 'Student enrolments',
        about: 'Students registered on a programme at the census date.',
        unit: 'integer',
        measure: 'enrolled_students',
        dims: ['faculty', 'level', 'origin', 'term'],
      },
      {
        id: 'dropout',
        name: 'Dropout rate',
        about: 'Share of first-year students who withdrew before the second year.',
        unit: 'number',
        measure: 'withdrawal_pct',
        dims: ['faculty', 'level', 'origin'],
      },
      {
        id: 'pass_rate',
        name: 'Course pass rate',
        about: 'Share of exam candidates who passed the module at first sitting.',
        unit: 'number',
        measure: 'pass_pct',
        dims: ['faculty', 'term'],
      },
      {
        id: 'attendance',
        name: 'Lecture attendance',
        about: 'Share of scheduled teaching sessions that students checked into with their card.',
        unit: 'number',
        measure: 'attendance_pct',
        dims: ['faculty', 'term'],
      },
      {
        id: 'fees',
        name: 'Outstanding tuition fees',
        about: 'Tuition fees invoiced to students and not yet paid.',
        unit: 'number',
        measure: 'fees_due',
        dims: ['faculty', 'origin'],
      },
      {
        id: 'applications',
        name: 'Applications and offers',
        about: 'Applications received for next year and the offers made to applicants.',
        unit: 'integer',
        measure: 'applications',
        dims: ['faculty', 'level', 'origin'],
      },
      {
        id: 'scholarships',
        name: 'Scholarships awarded',
        about: 'Bursaries and scholarships granted, number and total value.',
        unit: 'number',
        measure: 'scholarship_value',
        dims: ['faculty', 'level'],
      },
    ],
  },
  {
    context: 'TELECOM',
    prefix: 'tel',
    category: 'network',
    dims: {
      plan: {
        label: 'by plan type',
        phrase: 'Split by the type of subscription.',
        filter: ['plan', 'Subscription type', ['prepaid', 'postpaid', 'business', 'iot']],
        field: ['plan', 'string', 'Plan'],
      },
      region: {
        label: 'by region',
        phrase: 'Split by network region.',
        filter: ['region', 'Network region', ['capital', 'coast', 'highlands', 'rural_east']],
        field: ['region', 'string', 'Region'],
      },
      tech: {
        label: 'by network technology',
        phrase: 'Split by radio technology.',
        filter: ['technology', 'Radio access technology', ['3g', '4g', '5g']],
        field: ['technology', 'string', 'Technology'],
      },
      month: month('the subscriber base'),
    },
    families: [
      {
        id: 'churn',
        name: 'Subscriber churn',
        about: 'Share of subscribers who disconnected or moved to another operator in the month.',
        unit: 'number',
        measure: 'churn_pct',
        dims: ['plan', 'region', 'month'],
      },
      {
        id: 'arpu',
        name: 'Average revenue per user',
        about: 'Service revenue divided by active subscribers (ARPU).',
        unit: 'number',
        measure: 'arpu',
        dims: ['plan', 'region', 'month'],
      },
      {
        id: 'dropped_calls',
        name: 'Dropped call rate',
        about:
          'Share of voice calls that ended abnormally because the network lost the connection.',
        unit: 'number',
        measure: 'drop_pct',
        dims: ['region', 'tech', 'month'],
      },
      {
        id: 'data_usage',
        name: 'Mobile data traffic',
        about: 'Gigabytes of mobile data used by subscribers.',
        unit: 'number',
        measure: 'gigabytes',
        dims: ['plan', 'tech', 'month'],
      },
      {
        id: 'availability',
        name: 'Cell site availability',
        about: 'Share of time radio sites were on air, excluding planned works.',
        unit: 'number',
        measure: 'availability_pct',
        dims: ['region', 'tech'],
      },
      {
        id: 'porting',
        name: 'Number porting',
        about: 'Numbers ported in from and out to competing operators.',
        unit: 'integer',
        measure: 'ports',
        dims: ['plan', 'month'],
        extra: [['direction', 'Port direction', ['port_in', 'port_out']]],
      },
      {
        id: 'roaming',
        name: 'Roaming revenue',
        about: 'Revenue from our customers using foreign networks and visitors using ours.',
        unit: 'number',
        measure: 'roaming_revenue',
        dims: ['plan', 'month'],
        extra: [['roaming_type', 'Roaming direction', ['outbound', 'inbound']]],
      },
    ],
  },
  {
    context: 'LENDING',
    prefix: 'lnd',
    category: 'credit',
    dims: {
      product: {
        label: 'by loan product',
        phrase: 'Split by loan product.',
        filter: [
          'product',
          'Credit product',
          ['mortgage', 'personal_loan', 'car_loan', 'credit_card', 'sme_loan'],
        ],
        field: ['product', 'string', 'Product'],
      },
      branch: {
        label: 'by branch',
        phrase: 'Split by the branch that booked the account.',
        filter: ['branch', 'Branch', ['main_street', 'harbour', 'university', 'online']],
        field: ['branch', 'string', 'Branch'],
      },
      band: {
        label: 'by credit score band',
        phrase: 'Split by the borrower’s credit score band at origination.',
        filter: ['score_band', 'Credit score band', ['prime', 'near_prime', 'subprime']],
        field: ['score_band', 'string', 'Score band'],
      },
      month: month('the loan book'),
    },
    families: [
      {
        id: 'originations',
        name: 'Loan originations',
        about: 'New loans disbursed: count and principal amount.',
        unit: 'number',
        measure: 'principal',
        dims: ['product', 'branch', 'band', 'month'],
      },
      {
        id: 'delinquency',
        name: 'Delinquency rate',
        about: 'Share of the balance with payments overdue, by days past due bucket.',
        unit: 'number',
        measure: 'delinquent_pct',
        dims: ['product', 'band', 'month'],
        extra: [['dpd_bucket', 'Days past due', ['dpd_30', 'dpd_60', 'dpd_90_plus']]],
      },
      {
        id: 'approval',
        name: 'Application approval rate',
        about: 'Share of credit applications approved by underwriting.',
        unit: 'number',
        measure: 'approval_pct',
        dims: ['product', 'branch', 'band'],
      },
      {
        id: 'npl',
        name: 'Non-performing loans',
        about: 'Loans classified non-performing (default or 90 days past due) and provisions held.',
        unit: 'number',
        measure: 'npl_balance',
        dims: ['total', 'product', 'month'],
      },
      {
        id: 'deposits',
        name: 'Customer deposit balances',
        about: 'Money held in current and savings accounts at month end.',
        unit: 'number',
        measure: 'deposit_balance',
        dims: ['branch', 'month'],
        extra: [['account_type', 'Account type', ['current', 'savings', 'term_deposit']]],
      },
      {
        id: 'prepayment',
        name: 'Early repayments',
        about: 'Loans repaid in full before maturity and the principal repaid early.',
        unit: 'number',
        measure: 'prepaid_principal',
        dims: ['product', 'month'],
      },
      {
        id: 'card_spend',
        name: 'Card transaction volume',
        about: 'Value and count of purchases made with our debit and credit cards.',
        unit: 'number',
        measure: 'card_volume',
        dims: ['month'],
        extra: [
          [
            'merchant_category',
            'Merchant category',
            ['groceries', 'fuel', 'travel', 'online_retail'],
          ],
        ],
      },
    ],
  },
  {
    context: 'FACILITIES',
    prefix: 'fac',
    category: 'real_estate',
    dims: {
      building: {
        label: 'by building',
        phrase: 'Split by building.',
        filter: [
          'building',
          'Building',
          ['tower_a', 'tower_b', 'riverside_campus', 'warehouse_park'],
        ],
        field: ['building', 'string', 'Building'],
      },
      city: {
        label: 'by city',
        phrase: 'Split by city of the site.',
        filter: ['city', 'City', ['london', 'madrid', 'warsaw', 'toronto']],
        field: ['city', 'string', 'City'],
      },
      trade: {
        label: 'by trade',
        phrase: 'Split by the maintenance trade.',
        filter: [
          'trade',
          'Maintenance trade',
          ['electrical', 'plumbing', 'hvac', 'cleaning', 'security'],
        ],
        field: ['trade', 'string', 'Trade'],
      },
      month: month('the portfolio of buildings'),
    },
    families: [
      {
        id: 'utilisation',
        name: 'Desk utilisation',
        about: 'Share of desks booked or badged into on working days.',
        unit: 'number',
        measure: 'utilisation_pct',
        dims: ['building', 'city', 'month'],
      },
      {
        id: 'work_orders',
        name: 'Maintenance work orders',
        about: 'Repair and service requests raised for the buildings and how many are still open.',
        unit: 'integer',
        measure: 'work_orders',
        dims: ['building', 'trade', 'month'],
        extra: [['priority', 'Work order priority', ['p1', 'p2', 'p3']]],
      },
      {
        id: 'sla',
        name: 'Work order SLA compliance',
        about:
          'Share of work orders completed within the contractor’s agreed response and fix times.',
        unit: 'number',
        measure: 'sla_pct',
        dims: ['trade', 'city'],
      },
      {
        id: 'leases',
        name: 'Lease expiries',
        about: 'Leases ending or reaching a break option, with floor area and annual rent.',
        unit: 'number',
        measure: 'expiring_sqm',
        dims: ['total', 'city'],
      },
      {
        id: 'rent',
        name: 'Rent collected',
        about: 'Rent and service charges received from our sub-tenants, against what was billed.',
        unit: 'number',
        measure: 'rent_collected',
        dims: ['building', 'month'],
      },
      {
        id: 'cost_sqm',
        name: 'Occupancy cost per square metre',
        about: 'Rent, rates, service charge and running costs divided by floor area.',
        unit: 'number',
        measure: 'cost_per_sqm',
        dims: ['building', 'city'],
      },
      {
        id: 'building_energy',
        name: 'Building energy use',
        about: 'Electricity and gas consumed by our offices, per square metre.',
        unit: 'number',
        measure: 'kwh_per_sqm',
        dims: ['building', 'month'],
      },
    ],
  },
  {
    context: 'IT_OPERATIONS',
    prefix: 'ops',
    category: 'engineering',
    dims: {
      service: {
        label: 'by service',
        phrase: 'Split by business service.',
        filter: [
          'service',
          'Business service',
          ['checkout', 'payments_api', 'mobile_app', 'data_platform'],
        ],
        field: ['service', 'string', 'Service'],
      },
      team: {
        label: 'by team',
        phrase: 'Split by owning engineering team.',
        filter: ['team', 'Owning team', ['platform', 'web', 'mobile', 'data']],
        field: ['team', 'string', 'Team'],
      },
      env: {
        label: 'by environment',
        phrase: 'Split by deployment environment.',
        filter: ['environment', 'Environment', ['production', 'staging', 'dev']],
        field: ['environment', 'string', 'Environment'],
      },
      month: month('operations'),
    },
    families: [
      {
        id: 'incidents',
        name: 'Production incidents',
        about: 'Incidents declared by on-call engineers, by priority.',
        unit: 'integer',
        measure: 'incidents',
        dims: ['service', 'team', 'month'],
        extra: [['priority', 'Incident priority', ['p1', 'p2', 'p3', 'p4']]],
      },
      {
        id: 'mttr',
        name: 'Mean time to restore',
        about: 'Average minutes from incident start until the service was working again.',
        unit: 'number',
        measure: 'mttr_minutes',
        dims: ['service', 'team', 'month'],
      },
      {
        id: 'deploys',
        name: 'Deployment frequency',
        about: 'Releases shipped through the pipeline.',
        unit: 'integer',
        measure: 'deployments',
        dims: ['team', 'env', 'month'],
      },
      {
        id: 'change_fail',
        name: 'Change failure rate',
        about: 'Share of deployments that caused an incident or had to be rolled back.',
        unit: 'number',
        measure: 'change_failure_pct',
        dims: ['team', 'month'],
      },
      {
        id: 'cloud_cost',
        name: 'Cloud spend',
        about: 'Invoiced cost of cloud infrastructure, from the providers’ billing exports.',
        unit: 'number',
        measure: 'cloud_cost',
        dims: ['service', 'env', 'month'],
        extra: [['provider', 'Cloud provider', ['aws', 'azure', 'gcp']]],
      },
      {
        id: 'uptime',
        name: 'Service availability',
        about: 'Share of minutes the service met its SLO, and the error budget left.',
        unit: 'number',
        measure: 'availability_pct',
        dims: ['service', 'month'],
      },
      {
        id: 'vulns',
        name: 'Open security vulnerabilities',
        about: 'Findings from dependency and container scans that are not yet fixed, by severity.',
        unit: 'integer',
        measure: 'open_vulnerabilities',
        dims: ['team', 'service'],
        extra: [['cvss_severity', 'Severity', ['critical', 'high', 'medium', 'low']]],
      },
    ],
  },
];

const PERIOD: HeldOutFilter = {
  name: 'period',
  type: 'date_range',
  description: 'Reporting period',
  enumValues: null,
};

/** The frozen held-out catalog, in a stable order. */
export function heldOutCatalog(): HeldOutReport[] {
  const out: HeldOutReport[] = [];
  for (const area of AREAS) {
    const dims: Record<string, Dim> = { total, ...area.dims };
    for (const fam of area.families) {
      for (const dimId of fam.dims) {
        const dim = dims[dimId];
        if (!dim) throw new Error(`${area.prefix}_${fam.id}: no dimension ${dimId}`);
        const filters: HeldOutFilter[] = [PERIOD];
        if (dim.filter) {
          const [name, description, values] = dim.filter;
          filters.push({ name, type: 'enum', description, enumValues: values });
        }
        for (const [name, description, values] of fam.extra ?? []) {
          filters.push({ name, type: 'enum', description, enumValues: values });
        }
        out.push({
          id: `${area.prefix}_${fam.id}${dimId === 'total' ? '' : `_${dimId}`}`,
          family: `${area.prefix}_${fam.id}`,
          name: dim.label ? `${fam.name} ${dim.label}` : fam.name,
          description: `${fam.about} ${dim.phrase}`,
          category: area.category,
          context: area.context,
          filters,
          fields: [
            { name: dim.field[0], type: dim.field[1], description: dim.field[2] },
            { name: fam.measure, type: fam.unit, description: fam.name },
          ],
        });
      }
    }
  }
  return out;
}
