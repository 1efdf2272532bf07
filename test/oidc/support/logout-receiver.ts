import { startPostReceiver } from '../../support/post-receiver.js';
import type { PostReceiver } from '../../support/post-receiver.js';

export interface ReceivedLogout {
  path: string;
  contentType: string;
  /** The form field `logout_token` (OIDC Back-Channel Logout 1.0 §2.5). */
  logoutToken: string;
  answered: number;
}

/**
 * A relying party's back-channel logout endpoint (test/support/post-receiver.ts): every POST to a path under `/bcl/`
 * is kept with what was answered (`answer`, 200 unless a test says otherwise).
 */
export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  answer: (path: string) => number = () => 200;
  private next = 0;

  private constructor(
    private readonly receiver: PostReceiver,
    readonly url: string,
  ) {}

  static async start(): Promise<LogoutReceiver> {
    let self: LogoutReceiver | undefined;
    const receiver = await startPostReceiver(
      (path) => path.startsWith('/bcl/'),
      ({ path, headers, body }) => {
        const answered = self!.answer(path);
        self!.received.push({
          path,
          contentType: String(headers['content-type'] ?? ''),
          logoutToken: new URLSearchParams(body).get('logout_token') ?? '',
          answered,
        });
        return answered;
      },
    );
    self = new LogoutReceiver(receiver, receiver.origin);
    return self;
  }

  /** A fresh endpoint URI of this receiver, for one application. */
  endpoint(): string {
    return `${this.url}/bcl/${++this.next}`;
  }

  at(uri: string): ReceivedLogout[] {
    const path = new URL(uri).pathname;
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return this.receiver.close();
  }
}
