/**
 * WebhookSender in memory: keeps every request and answers as the test scripts it (default: delivered,
 * 200). No URL is fetched and no address is checked: the HTTP adapter's own rules (the SSRF guard, status
 * classes, Retry-After, timeouts) are tested on a real socket (test/unit/adapters/http, test/integration).
 */
import type { DeliveryResult, WebhookRequest, WebhookSender } from '../../ports/webhook-sender.ts';

export type Responder = (request: WebhookRequest, index: number) => DeliveryResult | Promise<DeliveryResult>;

export const DELIVERED: DeliveryResult = { outcome: 'delivered', status: 200, latencyMs: 1 };

export class InMemoryWebhookSender implements WebhookSender {
  /** Every request posted, oldest first. */
  readonly requests: WebhookRequest[] = [];
  #responder: Responder;

  constructor(responder: Responder = () => DELIVERED) {
    this.#responder = responder;
  }

  /** Answers the following requests with `responder`. */
  respondWith(responder: Responder): void {
    this.#responder = responder;
  }

  /** Answers the following requests with these results in turn, then as delivered. */
  respondInTurn(...results: DeliveryResult[]): void {
    const start = this.requests.length;
    this.#responder = (_, index) => results[index - start] ?? DELIVERED;
  }

  async post(request: WebhookRequest): Promise<DeliveryResult> {
    const index = this.requests.length;
    this.requests.push({ ...request, ...(request.headers ? { headers: { ...request.headers } } : {}) });
    return this.#responder(request, index);
  }
}
