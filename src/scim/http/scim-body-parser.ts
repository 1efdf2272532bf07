import { jsonBody } from '../../common/http/body-parsers.js';
import type { BodyProblem } from '../../common/http/body-parsers.js';
import { scimErrorBody } from '../errors/scim-error.js';
import { MAX_BULK_PAYLOAD_BYTES, SCIM_MEDIA_TYPE } from '../scim.constants.js';

/**
 * JSON parsing for `/scim/v2`, registered before the general parser: RFC 7644 §3.1 lets clients send
 * `application/scim+json` or `application/json`; the largest accepted body is the bulk
 * `maxPayloadSize` (spec §A). Malformed JSON and oversize bodies fail before any route runs, so they
 * are answered here, as SCIM envelopes (400 invalidSyntax, 413).
 */
export function scimBodyParser() {
  return jsonBody(MAX_BULK_PAYLOAD_BYTES, (res, problem) => {
    res.status(problem.status).type(SCIM_MEDIA_TYPE).send(JSON.stringify(scimBody(problem)));
  });
}

function scimBody(problem: BodyProblem): Record<string, unknown> {
  switch (problem.kind) {
    case 'malformed':
    case 'tooDeep':
      // RFC 7644 §3.12 invalidSyntax: "The request body message structure was invalid".
      return scimErrorBody(400, problem.message, 'invalidSyntax', 'invalidSyntax');
    case 'tooLarge':
      return scimErrorBody(413, problem.message, undefined, 'payloadTooLarge');
    case 'unsupportedEncoding':
      return scimErrorBody(415, problem.message, undefined, 'unsupportedMediaType');
  }
}
