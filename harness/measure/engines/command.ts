/** `servebench engines list | show NAME | validate [FILES]` over engines/*.yaml. */
import type { Engine } from '../../contract/engine.ts';
import { specCommand } from '../../lib/specs/spec-command.ts';
import { checkEngineFile, listEngineFiles, loadEngine } from './spec-file.ts';
import { heldEqualTable } from './held-equal-table.ts';

export const enginesCommand = specCommand<Engine>({
  command: 'engines',
  summary: 'list, show and validate engine definitions (engines/*.yaml)',
  folder: 'engines/',
  listFiles: () => listEngineFiles(),
  check: (file) => checkEngineFile(file),
  load: (nameOrPath) => loadEngine(nameOrPath),
  columns: [
    ['name', (e) => e.name],
    ['engine', (e) => e.display_name],
    ['program', (e) => e.serve.command[0]!],
    ['image', (e) => (e.image ? `${e.image.repository}:${e.image.tag}` : '–')],
    ['repository', (e) => e.source.repository ?? '–'],
  ],
  showAfter: heldEqualTable,
});
