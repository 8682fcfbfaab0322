/** Discovery of host config files in their default locations. Placeholder until it lands. */
import type { DiscoveredConfig } from '../../shared/host-api.js';

export async function discoverConfigs(): Promise<DiscoveredConfig[]> {
  return [];
}
