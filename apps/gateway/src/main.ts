import 'reflect-metadata';
import { start, startupFailure } from './start';

start().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${startupFailure(err)}\n`);
  process.exit(1);
});
