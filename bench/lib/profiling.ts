import type { GatewayOptions } from './gateway';
import { GatewayProcess } from './gateway';
import { log } from './log';
import { profileMarkdown } from './profile';
import type { BenchContext } from './types';

/**
 * Starts an extra gateway with the CPU profiler ready, runs `warm` (not sampled), then
 * `run` (sampled), stops it (the profile is written on exit) and returns the markdown
 * summary of the profile.
 */
export async function profileGateway(
  ctx: BenchContext,
  options: Omit<GatewayOptions, 'profile'>,
  title: string,
  workload: string,
  warm: (gateway: GatewayProcess) => Promise<void>,
  run: (gateway: GatewayProcess) => Promise<void>,
): Promise<string> {
  log(`profiling: ${title}`);
  const gateway = await GatewayProcess.start(ctx.cleanup, { ...options, profile: true });
  let file: string | undefined;
  try {
    await warm(gateway);
    await gateway.startProfiling();
    await run(gateway);
  } finally {
    file = await gateway.stop();
  }
  if (!file) return `#### Profile: ${title}\n\nno .cpuprofile was written\n`;
  return profileMarkdown(title, workload, file);
}

export function shouldProfile(ctx: BenchContext, missed: boolean): boolean {
  return ctx.profileAlways || (missed && ctx.profileOnMiss);
}
