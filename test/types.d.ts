// parse-prometheus-text-format ships no types: the part the tests use.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat (text: string): unknown[]
}
