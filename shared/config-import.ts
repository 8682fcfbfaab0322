/**
 * Importers for the MCP server lists of other hosts. Placeholder until the importer lands:
 * every call reports that importing is not available yet.
 */
import type { ConfigFormat, ImportResult } from './host-api.js';

export function importConfigText(_text: string, _format: ConfigFormat, _fileName?: string): ImportResult {
  throw new Error('config import is not implemented yet');
}
