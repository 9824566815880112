// Minimal type declarations for `s3rver` 3.x (a dev dependency; the package ships no types).
// Only the surface the test harness uses is declared.
declare module "s3rver" {
  import type { Server } from "node:http";

  export interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    configureBuckets?: Array<{ name: string; configs: Array<string | Buffer> }>;
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** The listener, once run() resolved (s3rver sets it; the harness closes idle connections on it). */
    httpServer?: Server;
  }
}
