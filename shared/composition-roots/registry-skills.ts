/**
 * What the remote-skill resolver of jsonrpc and rest reads from the registry
 * (shared/app/synapse/remote-skills.ts): the catalog this container holds (the registry's store on the
 * table, followed through its feed every REGISTRY_CATALOG_REFRESH_MS), the configured peers, and this
 * hub's Synapse agent id. Built by shared/composition-roots/core.ts on the first message whose skill is
 * neither local nor static. Imported, not loaded by `import()`: in a one-file bundle a module loaded so
 * is wrapped whole, and the AWS SDK it reaches is then kept whole too (docs/architecture.md#cold-start).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistryStore } from '../adapters/dynamodb/registry-store.ts';
import { Catalog } from '../app/registry/catalog.ts';
import { CatalogSkills, SkillDirectory } from '../app/synapse/registry-skills.ts';
import type { LoadedRegistry } from '../app/synapse/remote-skills.ts';
import { REGISTRY_CATALOG_REFRESH_MS } from '../config/registry.ts';
import { readSetting } from '../config/settings.ts';
import { SYNAPSE_AGENT_ID } from '../config/synapse.ts';
import { systemClock } from '../ports/clock.ts';
import { synapsePeers } from './synapse-peers.ts';

let loaded: LoadedRegistry | undefined;

/** The registry's catalog and the peers, for a task service whose store is `tableName` through `client`. */
export const registrySkills = (client: DynamoDBClient, tableName: string): LoadedRegistry => {
  loaded ??= {
    catalog: new CatalogSkills(
      new Catalog(
        new SkillDirectory(),
        new DynamoRegistryStore(client, tableName),
        systemClock,
        readSetting(REGISTRY_CATALOG_REFRESH_MS),
      ),
    ),
    peers: () => synapsePeers(),
    selfAgentId: readSetting(SYNAPSE_AGENT_ID),
  };
  return loaded;
};
