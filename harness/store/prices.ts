/** The price table, read like every other declarative spec (clear errors naming file and field). */
import { fileURLToPath } from 'node:url';
import { PriceTableSchema, type PriceTable } from '../contract/prices.ts';
import { loadYamlSpec } from '../lib/specs/yaml-spec.ts';

export const DEFAULT_PRICES = fileURLToPath(new URL('../../fleet/prices.yaml', import.meta.url));

export function loadPrices(path: string = DEFAULT_PRICES): PriceTable {
  return loadYamlSpec(path, '', PriceTableSchema, 'prices');
}
