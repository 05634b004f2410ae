/**
 * What a MySQL-protocol login may do, read from its `SHOW GRANTS` lines (issue #42), pure and
 * unit-tested. A source's login may hold SELECT and SHOW VIEW on the source's own database (or
 * its tables and columns) and USAGE (no privilege at all); every other grant is refused by name:
 * a write, FILE, SUPER, PROCESS, a privilege on every database or on another one, a grant option,
 * a proxy, an admin option on a role.
 */
const READ_PRIVILEGES = new Set(['SELECT', 'SHOW VIEW']);

/** One privilege grant, or one grant of roles, as a `SHOW GRANTS` line says it. */
export type GrantLine =
  | { kind: 'privileges'; privileges: string[]; on: string; grantOption: boolean; text: string }
  | { kind: 'roles'; roles: string[]; adminOption: boolean; text: string };

const PRIVILEGES = /^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s+/is;
const ROLES = /^GRANT\s+(.+?)\s+TO\s+/is;

/** A `SHOW GRANTS` line read, or undefined for lines that grant nothing (SET DEFAULT ROLE). */
export function readGrant(text: string): GrantLine | undefined {
  const line = text.trim();
  if (!/^GRANT\s/i.test(line)) return undefined;
  const grantOption = /\sWITH\s+GRANT\s+OPTION\s*$/i.test(line);
  const privileges = PRIVILEGES.exec(line);
  if (privileges)
    return {
      kind: 'privileges',
      privileges: topLevel(privileges[1]).map((p) => p.replace(/\s*\(.*$/s, '').toUpperCase()),
      on: privileges[2].trim(),
      grantOption,
      text: line,
    };
  const roles = ROLES.exec(line)!;
  return {
    kind: 'roles',
    roles: topLevel(roles[1]).map(roleName),
    adminOption: /\sWITH\s+ADMIN\s+OPTION\s*$/i.test(line),
    text: line,
  };
}

/** Why each grant is more than reading `database`; empty: the login only reads it. */
export function grantProblems(lines: readonly string[], database: string): string[] {
  const problems: string[] = [];
  for (const text of lines) {
    const grant = readGrant(text);
    if (!grant) continue;
    const shown = withoutPassword(grant.text);
    if (grant.kind === 'roles') {
      if (grant.adminOption) problems.push(`${shown}: may grant the role to others`);
      continue;
    }
    const beyond = grant.privileges.filter((p) => p !== 'USAGE' && !READ_PRIVILEGES.has(p));
    if (beyond.length > 0) problems.push(`${shown}: ${beyond.join(', ')} is more than reading`);
    else if (grant.privileges.some((p) => READ_PRIVILEGES.has(p))) {
      const db = databaseOf(grant.on);
      if (db === '*') problems.push(`${shown}: reads every database of the server`);
      else if (db !== database) problems.push(`${shown}: reads another database (${db})`);
    }
    if (grant.grantOption) problems.push(`${shown}: WITH GRANT OPTION`);
  }
  return problems;
}

/** The roles the lines grant (to the login or to one of its roles). */
export function grantedRoles(lines: readonly string[]): string[] {
  return [
    ...new Set(
      lines.flatMap((text) => {
        const grant = readGrant(text);
        return grant?.kind === 'roles' ? grant.roles : [];
      }),
    ),
  ];
}

/** The database a grant's `ON` names: `*` for every one, else its name unquoted. */
function databaseOf(on: string): string {
  const target = on.replace(/^(TABLE|PROCEDURE|FUNCTION|PACKAGE(\s+BODY)?)\s+/i, '');
  if (target === '*.*' || target === '*') return '*';
  const first = /^`((?:[^`]|``)*)`|^([^.\s]+)/.exec(target);
  const name = first?.[1]?.replace(/``/g, '`') ?? first?.[2] ?? target;
  // a database name in a grant is a LIKE pattern: `_` and `%` escaped with a backslash are literal
  if (/(^|[^\\])%/.test(name)) return `${name} (a pattern)`;
  return name.replace(/\\([_%])/g, '$1');
}

function roleName(text: string): string {
  const quoted = /^`((?:[^`]|``)*)`/.exec(text.trim());
  return quoted ? quoted[1].replace(/``/g, '`') : text.trim().replace(/@.*$/, '');
}

/** Splits on commas outside parentheses (column lists). */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

/** A grant line as messages show it: never the password hash MariaDB prints. */
function withoutPassword(line: string): string {
  return line.replace(/\s+IDENTIFIED\s+(BY|VIA|WITH)\s.*?(?=\s+WITH\s+GRANT\s+OPTION|$)/is, '');
}
