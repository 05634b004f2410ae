import { MetaToolError } from '@app/meta-tool';
import { RegistryError, toolNotFound } from '@app/registry';
import { SelectionError } from '@app/selection';
import { TemplateError } from '@app/templates';
import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { AuthError } from '../auth/token-verifier';
import { ConfigError } from '../config/gateway.config';
import { LimitError } from '../pipeline/limits';
import {
  batchOutcomeOf,
  ERRORS,
  GatewayError,
  httpErrorOf,
  jsonRpcErrorOf,
  mcpCallFailure,
  RPC,
  specOf,
  startupFailure,
} from '.';

const limit = () => new LimitError('user_calls_per_min', 7, 'too many calls');

describe('the error table', () => {
  it('gives outcome-only codes a 200 and no JSON-RPC error, and every refusal both', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      if (spec.jsonRpc === null) {
        expect([code, spec.http, spec.outcome]).toEqual([code, 200, true]);
      } else {
        expect([code, spec.http >= 200 && spec.http < 600]).toEqual([code, true]);
        expect([code, Object.values(RPC)]).toEqual([code, expect.arrayContaining([spec.jsonRpc])]);
      }
    }
  });

  it('derives HTTP_<status> codes the framework raises from their status', () => {
    expect(specOf('HTTP_415', 415).jsonRpc).toBe(RPC.invalidRequest);
    expect(specOf('HTTP_401', 401).jsonRpc).toBe(RPC.unauthorized);
    expect(specOf('HTTP_502', 502).jsonRpc).toBe(RPC.internalError);
    expect(specOf('HTTP_413', 413)).toBe(ERRORS.HTTP_413);
  });
});

describe('httpErrorOf', () => {
  it.each([
    [new RegistryError('UNKNOWN_CONTEXT', 'no context X', { valid: ['SALES'] }), 400],
    [toolNotFound('x'), 404],
    [new RegistryError('TENANT_NOT_FOUND', 't'), 401],
    [new RegistryError('FORBIDDEN', 'f'), 403],
    [new RegistryError('INVALID_REPORT', 'r'), 422],
    [new RegistryError('DATABASE_UNAVAILABLE', 'd'), 503],
    [new MetaToolError('PROPOSAL_NOT_PENDING', 'p'), 409],
    [new MetaToolError('GENERATED_TOOL_NOT_FOUND', 'g'), 404],
    [new SelectionError('INVALID_SELECT_REQUEST', 's'), 400],
    [new GatewayError('HTTP_400', 'bad query'), 400],
  ])('maps %p to its code and status', (err, status) => {
    const answer = httpErrorOf(err);
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toBe((err as { code: string }).code);
    expect(answer.body.error.message).toBe(err.message);
    expect(answer.known).toBe(true);
  });

  it('keeps a registry refusal its details and a template refusal its problems', () => {
    const details = { valid: ['SALES'] };
    expect(httpErrorOf(new RegistryError('UNKNOWN_CONTEXT', 'x', details)).body.error).toEqual({
      code: 'UNKNOWN_CONTEXT',
      message: 'x',
      details,
    });
    const problems = [{ rule: 'parse', message: 'the SQL does not parse' }];
    expect(httpErrorOf(new TemplateError('INVALID_TEMPLATE', problems))).toEqual({
      status: 422,
      body: {
        error: { code: 'INVALID_TEMPLATE', message: problems[0].message, details: { problems } },
      },
      known: true,
    });
  });

  it('answers a limit with 429, what was limited and when to retry', () => {
    expect(httpErrorOf(limit())).toEqual({
      status: 429,
      body: {
        error: {
          code: 'RATE_LIMITED',
          message: 'too many calls. Nothing was run.',
          details: { limit: 'user_calls_per_min', retry_after_seconds: 7 },
        },
      },
      known: true,
    });
  });

  it('answers a bad token with 401 UNAUTHENTICATED', () => {
    expect(httpErrorOf(new AuthError('token expired')).body.error).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'token expired',
    });
  });

  it("keeps the framework's own statuses as HTTP_<status>, messages joined", () => {
    const many = httpErrorOf(new BadRequestException(['a is bad', 'b is bad']));
    expect([many.status, many.body.error]).toEqual([
      400,
      { code: 'HTTP_400', message: 'a is bad; b is bad' },
    ]);
    expect(httpErrorOf(new NotFoundException('no route')).body.error.code).toBe('HTTP_404');
    expect(httpErrorOf(new PayloadTooLargeException()).status).toBe(413);
  });

  it('answers anything unknown with a 500 that says nothing inside, flagged for the log', () => {
    const answer = httpErrorOf(new TypeError('x is undefined at secret.ts:12'));
    expect(answer).toEqual({
      status: 500,
      body: {
        error: { code: 'INTERNAL', message: 'internal error; the request was not completed' },
      },
      known: false,
    });
  });
});

describe('jsonRpcErrorOf (refusals on /mcp before the SDK)', () => {
  const rpc = (err: unknown) => jsonRpcErrorOf(err, httpErrorOf(err));

  it('maps statuses and codes to JSON-RPC codes, with the HTTP answer as data', () => {
    expect(rpc(new AuthError('no token'))).toEqual({
      code: RPC.unauthorized,
      message: 'no token',
      data: { status: 401, code: 'UNAUTHENTICATED' },
    });
    expect(rpc(new RegistryError('UNKNOWN_CONTEXT', 'x')).code).toBe(RPC.invalidParams);
    expect(rpc(new RegistryError('DATABASE_UNAVAILABLE', 'x')).code).toBe(RPC.internalError);
    expect(rpc(limit()).code).toBe(RPC.invalidRequest);
    expect(rpc(new Error('boom')).code).toBe(RPC.internalError);
  });

  it('calls a body the JSON parser refused a parse error', () => {
    const plain = new BadRequestException('page must be a number');
    const syntax = new BadRequestException('bad', { cause: new SyntaxError('Unexpected token') });
    expect(rpc(syntax).code).toBe(RPC.parseError);
    expect(rpc(new BadRequestException('Body cannot be empty')).code).toBe(RPC.parseError);
    expect(rpc(plain).code).toBe(RPC.invalidRequest);
  });
});

describe('tool outcomes and MCP tools/call failures', () => {
  it('ends only its own call of a batch for a missing tool or an unreachable database', () => {
    expect(batchOutcomeOf('t', toolNotFound('t'))).toEqual({
      tool: 't',
      is_error: true,
      error: { code: 'TOOL_NOT_FOUND', message: 'no tool named "t" is available to you' },
    });
    expect(batchOutcomeOf('t', new RegistryError('DATABASE_UNAVAILABLE', 'down'))).toEqual({
      tool: 't',
      is_error: true,
      error: { code: 'DATA_UNAVAILABLE', message: 'down' },
    });
    expect(batchOutcomeOf('t', new RegistryError('UNKNOWN_CONTEXT', 'x'))).toBeUndefined();
    expect(batchOutcomeOf('t', new Error('boom'))).toBeUndefined();
  });

  it('answers a limit inside tools/call as a tool result the model reads', () => {
    expect(mcpCallFailure(limit())).toEqual({
      result: { isError: true, text: 'too many calls. Nothing was run.' },
    });
  });

  it('answers a missing tool -32602 and other failures -32603, unknown ones saying nothing', () => {
    const missing = mcpCallFailure(toolNotFound('t'));
    expect('error' in missing && missing.error).toMatchObject({
      code: RPC.invalidParams,
      message: 'no tool named "t" is available to you',
    });
    const down = mcpCallFailure(new RegistryError('DATABASE_UNAVAILABLE', 'down'));
    expect('error' in down && down.error).toMatchObject({
      code: RPC.internalError,
      message: 'down',
    });
    const unknown = mcpCallFailure(new Error('secret detail'));
    expect('error' in unknown && unknown.error).toMatchObject({
      code: RPC.internalError,
      message: 'internal error; the call was not completed',
    });
  });
});

describe('startupFailure', () => {
  it('prints a setting error as it is', () => {
    expect(startupFailure(new ConfigError('PORT must be an integer'))).toBe(
      'PORT must be an integer',
    );
  });

  it('keeps a code in front once and drops everything after the first line', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432\n  at x'), {
      code: 'ECONNREFUSED',
    });
    expect(startupFailure(err)).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(startupFailure('plain text')).toBe('plain text');
  });
});
