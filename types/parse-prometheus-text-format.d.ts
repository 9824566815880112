// Minimal type declarations for `parse-prometheus-text-format` 1.x (a dev dependency; the package
// ships no types): prom2json's shape, every value a string.
declare module "parse-prometheus-text-format" {
  export interface Sample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }

  export interface Family {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: Sample[];
  }

  export default function parsePrometheusTextFormat(text: string): Family[];
}
