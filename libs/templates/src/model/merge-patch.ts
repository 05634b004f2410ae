/**
 * JSON Merge Patch (RFC 7396), the body of `PATCH /v1/admin/reports/{id}`: a member present in
 * the patch replaces the target's (objects merged member by member, arrays replaced whole), a
 * member set to `null` is removed, and a member the patch does not name is left exactly as it
 * was. That last rule is why the console edits with it: a field the console does not know (added
 * to the report document later) survives a console save untouched.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
