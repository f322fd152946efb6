/**
 * The in-memory LifecyclePublisher (shared/adapters/memory/lifecycle-publisher.ts): the port's contract
 * (test/contract/lifecycle-publisher.ts, which the EventBridge adapter runs on the local event bus too).
 */
import { InMemoryLifecyclePublisher } from '../../../../shared/adapters/memory/lifecycle-publisher.ts';
import { lifecyclePublisherContract } from '../../../contract/lifecycle-publisher.ts';

lifecyclePublisherContract('in memory', {
  make: () => {
    const publisher = new InMemoryLifecyclePublisher();
    return { publisher, arrived: async () => publisher.events };
  },
});
