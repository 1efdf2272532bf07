// The parser ships no type declarations; test/operations/prometheus.ts types its result.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
