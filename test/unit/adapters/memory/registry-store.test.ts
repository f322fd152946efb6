/** The in-memory RegistryStore (shared/adapters/memory/registry-store.ts): the port's contract. */
import { InMemoryRegistryStore } from '../../../../shared/adapters/memory/registry-store.ts';
import { registryStoreContract } from '../../../contract/registry-store.ts';

registryStoreContract('in memory', { make: () => new InMemoryRegistryStore() });
