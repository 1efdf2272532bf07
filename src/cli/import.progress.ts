import cliProgress from 'cli-progress';

/**
 * Progress of an import: a bar with users done, users/s and ETA on a terminal; on anything else
 * (CI logs, pipes) one plain line per request, since a redrawn bar would only garble a log.
 */
export class ImportProgress {
  private readonly started = Date.now();
  private done = 0;
  private readonly bar: cliProgress.SingleBar | null;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream,
  ) {
    this.bar = stream.isTTY
      ? new cliProgress.SingleBar(
          { stream, format: ' {bar} {percentage}% | {value}/{total} users | {rate} users/s | ETA {eta_formatted}', hideCursor: true },
          cliProgress.Presets.shades_classic,
        )
      : null;
    this.bar?.start(total, 0, { rate: 0 });
  }

  advance(users: number): void {
    this.done += users;
    const rate = Math.round(this.done / Math.max(this.elapsedSeconds(), 0.001));
    if (this.bar) {
      this.bar.update(this.done, { rate });
      return;
    }
    const eta = rate > 0 ? Math.ceil((this.total - this.done) / rate) : 0;
    this.stream.write(`${this.done}/${this.total} users | ${rate} users/s | ETA ${eta}s\n`);
  }

  stop(): void {
    this.bar?.stop();
  }

  elapsedSeconds(): number {
    return (Date.now() - this.started) / 1000;
  }
}
