/**
 * The program each pooled sandbox child runs (spawned by `spawn-child.ts`). It loads the
 * QuickJS WebAssembly engine once and then, for every job, builds a fresh QuickJS runtime with
 * its own memory limit, stack limit and CPU deadline, evaluates the tool's source as an ES
 * module inside it, checks the contract and runs it once (`job.ts`). The tool's code only ever
 * sees what is defined inside the engine: `ctx.query`, `ctx.report`, `ctx.user`, `console` and
 * the language itself. There is no `process`, `require`, `import`, network, file, timer,
 * `WebAssembly` or shared memory in there to reach for.
 *
 * Messages to the parent are plain JSON objects whose payloads (arguments, rows, results)
 * travel as strings, so a value from the engine is never handed to Node's serializer.
 * Its arguments, after its file, are the absolute path of the quickjs-emscripten package and the
 * per-run memory limit in bytes (the engine's WebAssembly memory is capped from it).
 */
import { errorMessage, loadEngine, send, str } from './engine';
import { activeRun, runJob } from './job';
import { valid } from './protocol';

process.on('message', (message: unknown) => {
  if (!valid(message)) return;
  try {
    if (message.type === 'run') {
      if (activeRun())
        return send({
          type: 'failed',
          job: message.job,
          stage: 'crash',
          message: 'the sandbox was busy',
        });
      runJob(message);
    } else {
      const current = activeRun();
      if (current && current.job === message.job) current.reply(message);
    }
  } catch (err) {
    // anything unexpected in the engine glue: report it and let the parent replace this child
    send(
      {
        type: 'failed',
        job: message.job,
        stage: 'crash',
        message: str(errorMessage(err), 500),
        recycle: true,
      },
      () => process.exit(3),
    );
  }
});
process.on('disconnect', () => process.exit(0));

loadEngine().then(
  () => send({ type: 'ready' }),
  (err: unknown) => {
    send({ type: 'fatal', message: str(errorMessage(err), 500) });
    process.exit(2);
  },
);
