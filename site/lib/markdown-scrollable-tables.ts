/**
 * A hast plugin for the pages written in Markdown (Methodology renders docs/metrics.md): a table
 * there scrolls sideways when it is wider than the screen (`article table { overflow-x: auto }`),
 * and a scrolling region must be reachable from the keyboard (axe: scrollable-region-focusable),
 * so every table gets tabindex="0", as the pages' own tables get it from their wrapper.
 */
import type { HastPluginDefinition } from 'satteri';

export const scrollableTables: HastPluginDefinition = {
  name: 'servebench-scrollable-tables',
  element: {
    filter: ['table'],
    visit(node, ctx) {
      ctx.setProperty(node, 'tabIndex', 0);
    },
  },
};
