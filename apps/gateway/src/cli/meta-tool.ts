import readline from 'node:readline/promises';
import { AUTO_APPROVER, MetaToolService, TOOL_REVIEWER_ROLE } from '@app/meta-tool';
import type { Proposal } from '@app/meta-tool';
import type { Principal } from '@app/registry';
import { NestFactory } from '@nestjs/core';
import { loadSettings } from '../config/gateway.config';
import { MetaToolCliModule } from './meta-tool-cli.module';

/**
 * The human gate in a terminal: `npm run meta-tool -- review --tenant acme --reviewer rex`
 * prints each pending proposal in full and asks y/N (y installs through the sandboxed
 * runtime gate, n rejects, Enter leaves it pending). Without a terminal to ask, it refuses,
 * unless META_TOOL_AUTO_APPROVE=1, which approves everything and is recorded as the approver.
 */
function args(argv: string[]): { command: string; tenant: string; reviewer: string } {
  const [command, ...rest] = argv;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) flags.set(rest[i], rest[i + 1]);
  const tenant = flags.get('--tenant');
  const reviewer = flags.get('--reviewer') ?? '';
  if (command !== 'review' || !tenant)
    throw new Error('usage: meta-tool review --tenant T --reviewer NAME');
  return { command, tenant, reviewer };
}

function show(p: Proposal): string {
  const numbered = p.source
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(4)} | ${line}`)
    .join('\n');
  return [
    `proposal ${p.id}: ${p.name}`,
    `  proposed by ${p.proposedBy} at ${p.createdAt}, sha256 ${p.sha256}`,
    `  description: ${p.description || '(from the module)'}`,
    `  test args: ${p.testArgs ? JSON.stringify(p.testArgs) : '(none: it would never be smoke-tested)'}`,
    '  source:',
    numbered,
  ].join('\n');
}

async function main(): Promise<void> {
  const { tenant, reviewer } = args(process.argv.slice(2));
  const settings = loadSettings();
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!interactive && !settings.metaTool.autoApprove) {
    process.stderr.write(
      'refusing: there is no terminal to ask and META_TOOL_AUTO_APPROVE is not 1; nothing was imported, run or written, and the registry is unchanged\n',
    );
    process.exitCode = 1;
    return;
  }
  if (interactive && !reviewer)
    throw new Error('--reviewer NAME is required: it is recorded as the approver');
  // the gateway's own wiring (run built: Nest's DI needs tsc's decorator metadata)
  const app = await NestFactory.createApplicationContext(MetaToolCliModule.forRoot(settings), {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  try {
    const who: Principal = {
      tenantId: tenant,
      userId: interactive ? reviewer : AUTO_APPROVER,
      roles: [TOOL_REVIEWER_ROLE],
      claims: {},
    };
    await review(app.get(MetaToolService), who, interactive);
  } finally {
    await app.close();
  }
}

/** Each pending proposal in full, then y installs, n rejects, Enter leaves it pending. */
async function review(service: MetaToolService, who: Principal, interactive: boolean) {
  const pending = await service.listPending(who);
  if (pending.length === 0) process.stdout.write(`no pending proposals in ${who.tenantId}\n`);
  const prompt = interactive
    ? readline.createInterface({ input: process.stdin, output: process.stdout })
    : undefined;
  try {
    for (const proposal of pending) {
      process.stdout.write(`\n${show(proposal)}\n`);
      let answer = 'y';
      if (prompt)
        answer = (await prompt.question(`Approve ${proposal.name}? [y/N, n rejects, Enter skips] `))
          .trim()
          .toLowerCase();
      else
        process.stdout.write(`auto-approving ${proposal.name} because META_TOOL_AUTO_APPROVE=1\n`);
      if (answer === 'y' || answer === 'yes')
        process.stdout.write(`${(await service.approve(who, proposal.id)).message}\n`);
      else if (answer === 'n' || answer === 'no')
        process.stdout.write(
          `${(await service.reject(who, proposal.id, 'declined in the terminal')).message}\n`,
        );
      else process.stdout.write('skipped; it stays pending\n');
    }
  } finally {
    prompt?.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
