import { cut } from '../contract';
import { redactValues } from './error-redaction';
import type { RunValues } from './error-redaction';

/** Lines one run may write to the gateway log; the sandbox caps them too, this is the host's own bound. */
export const MAX_LOG_LINES = 50;
/** Characters of one line, after redaction. */
export const MAX_LOG_CHARS = 500;
const LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);

/**
 * A generated tool's `console.*` output on its way to the gateway log: a tool that logs the rows
 * it read (`console.log(rows)`) would otherwise write its caller's data into the log verbatim.
 * Each line passes through the same redaction as `last_error` (every value the run was given or
 * has read so far replaced), then is cut to MAX_LOG_CHARS; past MAX_LOG_LINES one line says the
 * rest was dropped. What comes from the child is not trusted to have been bounded there.
 */
export class RunLog {
  private lines = 0;

  constructor(
    private readonly values: RunValues,
    private readonly write: (line: string) => void,
    private readonly limits = { lines: MAX_LOG_LINES, chars: MAX_LOG_CHARS },
  ) {}

  line(level: string, text: string): void {
    this.lines += 1;
    if (this.lines > this.limits.lines) {
      if (this.lines === this.limits.lines + 1)
        this.write(`console output past ${this.limits.lines} lines dropped`);
      return;
    }
    const shown = LEVELS.has(level) ? level : 'log';
    // cut before redacting too: a huge line is not searched value by value
    const redacted = redactValues(cut(text, this.limits.chars * 4), this.values);
    this.write(`console.${shown}: ${cut(redacted, this.limits.chars)}`);
  }
}
