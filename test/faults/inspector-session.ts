import WebSocket from 'ws';

/**
 * A Chrome DevTools Protocol session with a process started with `--inspect=127.0.0.1:0`, found by the
 * "Debugger listening on ws://…" line it prints. The soak asks it for a full garbage collection
 * (`HeapProfiler.collectGarbage`: V8's collection of all available garbage, as before a heap snapshot) and for the
 * live JS heap (`Runtime.getHeapUsage`), without a snapshot: writing one allocates hundreds of megabytes outside the
 * JS heap that the allocator keeps for a while, which moved the resident size measured after it by ±10%.
 */
export class InspectorSession {
  private next = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
    // A process that ends (or crashes) answers nothing more: what waits on it fails now, not at the test's timeout.
    socket.on('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('the inspected process closed its inspector'));
      this.pending.clear();
    });
  }

  static async open(output: string): Promise<InspectorSession> {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
    if (!url) throw new Error(`no inspector address in the process's output:\n${output.slice(-2000)}`);
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new InspectorSession(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.socket.close();
  }
}
