export { SqlGuard } from './sql-guard';
export { placeholderNames } from './parameters';
export type {
  ParameterStyle,
  SqlGuardInput,
  SqlGuardRule,
  SqlGuardVerdict,
  SqlGuardViolation,
  SqlWhitelist,
} from './sql-guard';
