import { applyDecorators } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import {
  ApiBody,
  ApiDefaultResponse,
  ApiQuery,
  ApiResponse,
  DocumentBuilder,
  SwaggerModule,
} from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { OPENAPI_SCHEMAS, schemaRef } from './openapi-schemas';

/**
 * How the REST routes describe themselves in /docs/json: one decorator per route names its
 * answer, its body and the errors it can give, all as components from openapi-schemas.ts.
 */
const ERRORS: Record<number, string> = {
  400: 'malformed request (the message says what to send)',
  401: 'missing or invalid bearer token (WWW-Authenticate says why)',
  403: 'the caller may not do this',
  404: 'no such item for this caller',
  409: 'the item is not in a state that allows this',
  413: 'request body too large',
  422: 'the document was refused whole, with every reason',
  429: 'per-user or per-tenant limit reached',
  503: 'the database is unavailable',
};

/** The errors every authenticated route can give. */
export const AUTHED = [400, 401, 403, 429, 503];

export interface Answer {
  /** a component name, or null for no content */
  schema: string | null;
  status?: number;
  description?: string;
  /** the request body's component */
  body?: string;
  bodyRequired?: boolean;
  /** error statuses beyond the default error answer */
  errors?: number[];
  /** when the answer is not JSON */
  contentType?: string;
}

/** The route's answer, body and errors; every route also has a `default` ErrorBody answer. */
export function ApiAnswer(answer: Answer): MethodDecorator {
  const status = answer.status ?? 200;
  const decorators: MethodDecorator[] = [
    answer.schema === null
      ? ApiResponse({ status, description: answer.description ?? 'done, no content' })
      : ApiResponse({
          status,
          description: answer.description ?? 'success',
          content: {
            [answer.contentType ?? 'application/json']: { schema: schemaRef(answer.schema) },
          },
        }),
    ...[...new Set(answer.errors ?? AUTHED)].map((code) =>
      ApiResponse({ status: code, description: ERRORS[code], schema: schemaRef('ErrorBody') }),
    ),
    ApiDefaultResponse({ description: 'any other error', schema: schemaRef('ErrorBody') }),
  ];
  if (answer.body)
    decorators.push(
      ApiBody({ schema: schemaRef(answer.body), required: answer.bodyRequired ?? true }),
    );
  return applyDecorators(...decorators);
}

/** A string query parameter with a real schema (an undecorated one would get none). */
export function ApiStringQuery(
  name: string,
  description: string,
  options: { required?: boolean; enum?: string[]; example?: string } = {},
): MethodDecorator {
  return ApiQuery({
    name,
    description,
    required: options.required ?? false,
    schema: {
      type: 'string',
      ...(options.enum ? { enum: options.enum } : { minLength: 1 }),
      ...(options.example ? { examples: [options.example] } : {}),
    },
  });
}

/** The served OpenAPI 3.1 document: the routes' decorators plus the shared components. */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('Report tool gateway')
      .setDescription('Report metadata in Postgres, served as per-user LLM tools')
      .addBearerAuth()
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...OPENAPI_SCHEMAS },
  };
  return document;
}
