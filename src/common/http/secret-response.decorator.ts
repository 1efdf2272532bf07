import { Header, applyDecorators } from '@nestjs/common';

/**
 * A response that carries a secret shown once (client secret, machine secret, PAT, private key): no cache
 * may keep it (RFC 9111 §5.2.2.5 `no-store`; `Pragma` for HTTP/1.0 caches, as RFC 6749 §5.1 asks of tokens).
 */
export function SecretResponse() {
  return applyDecorators(Header('Cache-Control', 'no-store'), Header('Pragma', 'no-cache'));
}
