/**
 * The floor of `/healthz`: a bare Express 5 app with Express's defaults and one JSON route,
 * nothing else — no database, no logging, no metrics. What the per-request overhead target compares
 * Portcullis's `/healthz` with, measured in the same run. Not part of the service.
 *
 *   node dist/bench/peers/bare-express.js <port>
 */
import express from 'express';

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok', worker: 0 });
});
app.listen(Number(process.argv[2]), '127.0.0.1');
