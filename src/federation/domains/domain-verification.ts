import { Inject, Injectable, Logger } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';

/** The name of the TXT record that proves a domain (as ACME's `_acme-challenge`, RFC 8555 §8.4). */
export const DNS_CHALLENGE_LABEL = '_portcullis-challenge';
/** Where the HTTPS file that proves a domain lives (a well-known URI, RFC 8615). */
export const HTTP_CHALLENGE_PATH = '/.well-known/portcullis-challenge';
/** A challenge is 43 characters; a longer answer is not one. */
const MAX_FILE_BYTES = 1024;

/** Where the owner publishes a domain's challenge: either one proves the domain. */
export interface DomainChallenge {
  dnsTxtName: string;
  dnsTxtValue: string;
  httpUrl: string;
  httpBody: string;
}

export type ProofMethod = 'dns' | 'http';

/**
 * Looks for a domain's challenge (docs/federation.md, "Organization domains"): the TXT record
 * `_portcullis-challenge.<domain>`, then the file `https://<domain>/.well-known/portcullis-challenge/<challenge>`.
 * Both through DOMAIN_VERIFICATION_DNS_SERVERS when set (an instance whose domains only an internal DNS server
 * knows), the file under the outbound rules (outbound-fetch.ts: checked addresses, no redirects, a time and size
 * limit; non-public addresses only with OUTBOUND_ALLOW_PRIVATE_NETWORKS).
 */
@Injectable()
export class DomainVerification {
  private readonly logger = new Logger('domains');
  private readonly resolver: Resolver;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.resolver = new Resolver({ timeout: config.idpTimeoutMs, tries: 2 });
    if (config.domainVerification.dnsServers.length > 0) this.resolver.setServers(config.domainVerification.dnsServers);
  }

  challengeOf(domain: string, challenge: string): DomainChallenge {
    const port = this.config.domainVerification.httpsPort === 443 ? '' : `:${this.config.domainVerification.httpsPort}`;
    return {
      dnsTxtName: `${DNS_CHALLENGE_LABEL}.${domain}`,
      dnsTxtValue: challenge,
      httpUrl: `https://${domain}${port}${HTTP_CHALLENGE_PATH}/${challenge}`,
      httpBody: challenge,
    };
  }

  /** How the challenge was found, or undefined when neither place has it. */
  async proof(domain: string, challenge: string): Promise<ProofMethod | undefined> {
    const where = this.challengeOf(domain, challenge);
    if (await this.inDns(where)) return 'dns';
    if (await this.atUrl(where)) return 'http';
    return undefined;
  }

  private async inDns(where: DomainChallenge): Promise<boolean> {
    try {
      // A TXT record's value may come in several strings of at most 255 octets; together they are one (RFC 7208 §3.3).
      return (await this.resolver.resolveTxt(where.dnsTxtName)).some((chunks) => chunks.join('') === where.dnsTxtValue);
    } catch (error) {
      this.logger.debug(`no TXT record ${where.dnsTxtName}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      return false;
    }
  }

  private async atUrl(where: DomainChallenge): Promise<boolean> {
    const fetch = outboundFetch({
      allowPrivateNetworks: this.config.outboundAllowPrivateNetworks,
      timeoutMs: this.config.idpTimeoutMs,
      maxBodyBytes: MAX_FILE_BYTES,
      ...(this.config.domainVerification.dnsServers.length > 0 ? { resolve: (host: string) => this.addressesOf(host) } : {}),
    });
    try {
      const res = await fetch(where.httpUrl, { method: 'GET', headers: { accept: 'text/plain' } });
      return res.status === 200 && (await res.text()).trim() === where.httpBody;
    } catch (error) {
      this.logger.debug(
        `no challenge file at https://${new URL(where.httpUrl).host}${HTTP_CHALLENGE_PATH}/…: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
  }

  private async addressesOf(host: string): Promise<LookupAddress[]> {
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
    const of = (result: PromiseSettledResult<string[]>, family: number) =>
      result.status === 'fulfilled' ? result.value.map((address) => ({ address, family })) : [];
    return [...of(v4, 4), ...of(v6, 6)];
  }
}
