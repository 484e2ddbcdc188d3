import type { ExecuteContext, Policy } from '@rxgate/core';
import type { Dispatcher } from 'undici';

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type DispatchFn = Dispatcher['dispatch'];
type Headers = Record<string, string | string[] | undefined>;

/** What the policies inside an interceptor see of one attempt: the answer's status and headers. */
export interface AttemptResponse {
  readonly statusCode: number;
  readonly headers: Headers;
  readonly statusMessage: string;
}

export interface InterceptorOptions {
  /**
   * The context every call starts with. @default `{ key: origin }` (the limiter's and breaker's
   * key is the origin), with the request's signal
   */
  readonly contextOf?: (opts: Dispatcher.DispatchOptions) => ExecuteContext;
}

/**
 * One attempt: dispatched with a handler of ours that holds the answer at its headers (paused,
 * so the body waits) until the policy decides — forwarded to the caller's handler as the
 * result, or discarded (drained, so the connection is kept) when a retry replaces it.
 */
class Attempt implements AttemptResponse {
  statusCode = 0;
  headers: Headers = {};
  statusMessage = '';
  #controller: Controller | undefined;
  #target: Handler | undefined;
  #outer: OuterController | undefined;
  #discarded = false;
  #started = false;
  #chunks: Buffer[] = [];
  #ended = false;
  #trailers: Headers = {};
  #error: Error | undefined;
  readonly #resolve: (a: Attempt) => void;
  readonly #reject: (e: Error) => void;

  constructor(resolve: (a: Attempt) => void, reject: (e: Error) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  get controller(): Controller | undefined {
    return this.#controller;
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Headers,
    statusMessage?: string,
  ): void {
    this.#controller = controller;
    this.statusCode = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage ?? '';
    this.#started = true;
    controller.pause();
    this.#resolve(this);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#discarded) return;
    if (this.#target !== undefined) this.#target.onResponseData?.(this.#outer!, chunk);
    else this.#chunks.push(chunk);
    void controller;
  }

  onResponseEnd(controller: Controller, trailers: Headers): void {
    if (this.#discarded) return;
    if (this.#target !== undefined) this.#target.onResponseEnd?.(this.#outer!, trailers);
    else {
      this.#ended = true;
      this.#trailers = trailers;
    }
    void controller;
  }

  onResponseError(controller: Controller, error: Error): void {
    if (!this.#started) {
      this.#reject(error);
      return;
    }
    if (this.#discarded) return;
    if (this.#target !== undefined) this.#target.onResponseError?.(this.#outer!, error);
    else this.#error = error;
    void controller;
  }

  /** Hands the held answer to the caller's handler: its headers, what body came, then the rest. */
  forward(target: Handler, outer: OuterController): void {
    this.#target = target;
    this.#outer = outer;
    target.onResponseStart?.(outer, this.statusCode, this.headers, this.statusMessage);
    for (const chunk of this.#chunks) target.onResponseData?.(outer, chunk);
    this.#chunks = [];
    if (this.#ended) target.onResponseEnd?.(outer, this.#trailers);
    else if (this.#error !== undefined) target.onResponseError?.(outer, this.#error);
    else if (!outer.paused) this.#controller?.resume();
  }

  /** Drops the answer (a retry replaces it): its body is drained, not read. */
  discard(): void {
    if (this.#discarded || this.#target !== undefined) return;
    this.#discarded = true;
    this.#chunks = [];
    this.#controller?.resume();
  }
}

/** The controller the caller's handler gets: aborts the whole call, pauses the attempt that answers. */
class OuterController implements Controller {
  #aborted = false;
  #paused = false;
  #reason: Error | null = null;
  readonly #abort = new AbortController();
  current: Attempt | undefined;

  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  get aborted(): boolean {
    return this.#aborted;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#abort.abort(reason);
    this.current?.controller?.abort(reason);
  }
  pause(): void {
    this.#paused = true;
    this.current?.controller?.pause();
  }
  resume(): void {
    this.#paused = false;
    this.current?.controller?.resume();
  }
}

const defaultContext = (opts: Dispatcher.DispatchOptions): ExecuteContext => ({
  key: opts.origin === undefined ? '' : String(opts.origin),
});

/**
 * An undici interceptor that runs every request under `policy` (a limiter, a breaker, a retry,
 * or a `wrap` of them). Each attempt resolves at the answer's headers with an
 * {@link AttemptResponse} for the policy to judge (a breaker's `classifyResult`, a retry's
 * judge, the limiter's `quotaOf`: `@rxgate/classifier`'s adapters read it); the answer the
 * policy settles with goes on to the caller, body and all; one it retries is drained. A refusal
 * (an open breaker, a limiter deadline) reaches the caller as the request's error.
 *
 * The policy's part of a call ends at the headers: a limiter's concurrency slot is given back
 * when the answer starts, not when its body ends.
 */
export function policyInterceptor(
  policy: Policy,
  options: InterceptorOptions = {},
): Dispatcher.DispatcherComposeInterceptor {
  const contextOf = options.contextOf ?? defaultContext;
  return (dispatch: DispatchFn): DispatchFn =>
    (opts, handler) => {
      const outer = new OuterController();
      const base = contextOf(opts);
      const context: ExecuteContext = { ...base, signal: outer.signal };
      handler.onRequestStart?.(outer, {});
      policy
        .execute<Attempt>(() => {
          outer.current?.discard();
          if (outer.aborted) return Promise.reject(outer.reason);
          return new Promise<Attempt>((resolve, reject) => {
            const attempt = new Attempt(resolve, reject);
            outer.current = attempt;
            try {
              dispatch(opts, attempt);
            } catch (e) {
              reject(e as Error);
            }
          });
        }, context)
        .then(
          (attempt) => {
            outer.current = attempt;
            attempt.forward(handler, outer);
          },
          (error: unknown) => {
            outer.current?.discard();
            handler.onResponseError?.(outer, error instanceof Error ? error : new Error(String(error)));
          },
        );
      return true;
    };
}
