/** One request of a fuzz run, exactly as it goes on the wire (see wire.ts). */
export interface FuzzRequest {
  /** Position in the run; with the run's seed it regenerates this request alone. */
  index: number;
  /** The route aimed at and the oddity, e.g. `send-sms: body field` (for grouping failures). */
  label: string;
  /** The method as sent (any case, any token). */
  method: string;
  /** The request target as sent: path and query, characters written as UTF-8 bytes. */
  target: string;
  /** Header lines in order, names as spelled; values written as UTF-8 bytes. */
  headers: Array<[string, string]>;
  body?: Buffer;
  /** HTTP version token of the request line (default HTTP/1.1). */
  version?: string;
  /** Do not add `Host` (default: added first). */
  noHost?: boolean;
  /** Carries a Stripe-Signature whose timestamp is the generation time (valid for 5 minutes). */
  timeBound?: boolean;
  /** The request line and headers cannot be expressed with curl's options (see curl.ts). */
  rawOnly?: boolean;
}
