/**
 * Built-in functions a report query may call. This is an allow-list on purpose: anything not
 * named here (pg_sleep, set_config, current_setting, pg_read_file, lo_*, dblink, nextval,
 * pg_advisory_*, query_to_xml, ...) is refused without having to be foreseen. Every entry is
 * read-only and does no I/O outside the query; names are as Postgres stores them (lower case).
 */
import { words } from './words';

const AGGREGATES = words(`
  count sum avg min max any_value string_agg array_agg json_agg jsonb_agg json_agg_strict
  jsonb_agg_strict json_object_agg jsonb_object_agg json_object_agg_strict
  jsonb_object_agg_strict json_object_agg_unique jsonb_object_agg_unique
  json_object_agg_unique_strict jsonb_object_agg_unique_strict bool_and bool_or every
  bit_and bit_or bit_xor stddev stddev_pop stddev_samp variance var_pop var_samp
  covar_pop covar_samp corr regr_avgx regr_avgy regr_count regr_intercept regr_r2
  regr_slope regr_sxx regr_sxy regr_syy percentile_cont percentile_disc mode range_agg
  range_intersect_agg
`);

const WINDOW = words(`
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value
  nth_value
`);

/** Includes the names the parser itself emits for SQL syntax (EXTRACT, AT TIME ZONE, OVERLAPS). */
const DATE_TIME = words(`
  now clock_timestamp statement_timestamp transaction_timestamp date_trunc date_part
  extract date_bin date_add date_subtract age make_date make_time make_timestamp
  make_timestamptz make_interval to_char to_date to_timestamp to_number justify_days
  justify_hours justify_interval isfinite timezone overlaps
`);

/** Includes the names the parser emits for SUBSTRING/POSITION/TRIM/OVERLAY/SIMILAR TO syntax. */
const STRING = words(`
  lower upper initcap casefold length char_length character_length octet_length
  bit_length substring substr trim btrim ltrim rtrim lpad rpad concat concat_ws replace
  split_part strpos position left right reverse repeat format overlay translate ascii chr
  regexp_replace regexp_match regexp_matches regexp_split_to_array regexp_split_to_table
  regexp_count regexp_instr regexp_like regexp_substr starts_with similar_to_escape like_escape md5
  sha224 sha256 sha384 sha512 to_hex encode decode normalize is_normalized unistr
  quote_ident quote_literal quote_nullable string_to_array string_to_table
`);

const MATH = words(`
  abs ceil ceiling floor round trunc mod div power pow sqrt cbrt exp ln log log10 sign
  random random_normal width_bucket degrees radians pi gcd lcm factorial scale min_scale
  trim_scale sin cos tan cot asin acos atan atan2 sind cosd tand cotd asind acosd atand
  atan2d
`);

const JSON_FUNCTIONS = words(`
  to_json to_jsonb array_to_json row_to_json json_build_object jsonb_build_object
  json_build_array jsonb_build_array json_object jsonb_object json_array_elements
  jsonb_array_elements json_array_elements_text jsonb_array_elements_text
  json_array_length jsonb_array_length json_each jsonb_each json_each_text
  jsonb_each_text json_extract_path jsonb_extract_path json_extract_path_text
  jsonb_extract_path_text json_object_keys jsonb_object_keys json_typeof jsonb_typeof
  json_strip_nulls jsonb_strip_nulls jsonb_set jsonb_set_lax jsonb_insert jsonb_pretty
  json_to_record json_to_recordset jsonb_to_record jsonb_to_recordset jsonb_path_exists
  jsonb_path_match jsonb_path_query jsonb_path_query_array jsonb_path_query_first
  jsonb_path_exists_tz jsonb_path_match_tz jsonb_path_query_tz jsonb_path_query_array_tz
  jsonb_path_query_first_tz
`);

const ARRAYS_AND_RANGES = words(`
  array_length cardinality unnest array_to_string array_position array_positions
  array_append array_prepend array_cat array_remove array_replace array_dims array_lower
  array_upper array_ndims array_fill array_reverse array_sort trim_array generate_series
  generate_subscripts isempty lower_inc upper_inc lower_inf upper_inf range_merge
  int4range int8range numrange daterange tsrange tstzrange
`);

const TEXT_SEARCH_AND_MISC = words(`
  to_tsvector to_tsquery plainto_tsquery phraseto_tsquery websearch_to_tsquery ts_rank
  ts_rank_cd ts_headline setweight num_nulls num_nonnulls gen_random_uuid uuidv4 uuidv7
`);

/** Functional-notation casts, e.g. date(created_at). */
const CASTS = words('date text numeric int4 int8 float8 bool');

export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  ...AGGREGATES,
  ...WINDOW,
  ...DATE_TIME,
  ...STRING,
  ...MATH,
  ...JSON_FUNCTIONS,
  ...ARRAYS_AND_RANGES,
  ...TEXT_SEARCH_AND_MISC,
  ...CASTS,
]);

/** How a refusal message describes the allow-list. */
export const ALLOWED_FUNCTION_KINDS =
  'aggregates, window, date/time, string, math, json, array, casts';
