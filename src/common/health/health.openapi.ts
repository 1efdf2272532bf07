import type { OperationObject } from '@nestjs/swagger';
import type { OpenApiSurface } from '../http/openapi/openapi-document.js';
import { API_ERROR_SCHEMA_REF } from '../http/openapi/openapi-document.js';
import { ACCESS_EXTENSION } from '../http/openapi/access-extension.js';
import { HEALTH_PATH } from './health.listener.js';

/** `GET /healthz`, which no controller declares: it is answered before Express (health.listener.ts). */
export function healthOpenApi(): OpenApiSurface {
  return {
    paths: {
      [HEALTH_PATH]: {
        get: {
          tags: ['health'],
          summary: 'Readiness probe',
          description: 'No token needed.',
          // The id the controller it replaced generated: clients generated from the document keep their method name.
          operationId: 'HealthController_check',
          [ACCESS_EXTENSION]: { public: true },
          security: [],
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/HealthDto' } } } },
            '503': { description: 'the database is not reachable', content: { 'application/json': { schema: { $ref: API_ERROR_SCHEMA_REF } } } },
          },
        } as OperationObject,
      },
    },
    schemas: {
      HealthDto: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['ok'] },
          worker: { type: 'number', description: 'the cluster worker that answered (0: not clustered)' },
        },
        required: ['status', 'worker'],
      },
    },
  };
}
