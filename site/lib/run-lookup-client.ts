/**
 * The run lookup page (/run/?id=<run id>): any published run, read in the browser from the weekly
 * Parquet files (run-parquet.ts), since only the runs some page links to are prerendered; shown as
 * the prerendered run pages show it (run-fields.ts). Values are text only, never HTML.
 */
import { exclusionSummary, VALIDITY_LABELS } from '../../harness/contract/validity.ts';
import { reproduceBlock } from '../../harness/contract/reproduce-block.ts';
import { wireCopyButton } from './copy-button.ts';
import { visibleText } from './format.ts';
import { harnessCommit, NO_REPRODUCE_BLOCK, POINT_COLUMNS, pointCell, PROVENANCE, provenanceText, rawResultUrl, reproduceNote, shown, validityOf } from './run-fields.ts';
import { readRun, weekOfRunId, type Row, type WeeklyFiles } from './run-parquet.ts';

/** What the page knows at build time (site/pages/run/index.astro). */
export interface LookupConfig extends WeeklyFiles {
  /** The published data's folder URL, ending in "/". */
  readonly data: string;
  /** Hardware key → its lane's name. */
  readonly hardware: Readonly<Record<string, string>>;
  readonly repository: string | null;
  /** The list of the runs with a prerendered page, and where those pages are (`<prefix><id>/`). */
  readonly prerenderedList: string;
  readonly prerenderedPrefix: string;
}

const downloads = new Map<string, Promise<ArrayBuffer>>();
/** A published file's bytes, downloaded once per page. */
function bytesOf(config: LookupConfig, path: string): Promise<ArrayBuffer> {
  let done = downloads.get(path);
  if (!done) {
    done = fetch(`${config.data}${path}`).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${path}: HTTP ${r.status}`))));
    done.catch(() => downloads.delete(path));
    downloads.set(path, done);
  }
  return done;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/**
 * The Reproduce block from the published line (runs.reproduce_line, read at compile by servebench's
 * own option table), around it the clone and checkout the prerendered pages show; the line is text,
 * never parsed here. Older compiled data has no line: no block.
 */
function reproduceSection(config: LookupConfig, run: Row): HTMLElement[] {
  const heading = el('h2', { id: 'h-reproduce' }, 'Reproduce');
  if (typeof run.reproduce_line !== 'string') return [heading, el('p', { class: 'muted' }, NO_REPRODUCE_BLOCK)];
  const commit = harnessCommit(run);
  const button = el('button', { type: 'button', 'data-copy': 'reproduce' }, 'Copy');
  wireCopyButton(button);
  return [
    heading,
    el('p', { class: 'muted' }, reproduceNote(commit, run.image_digest)),
    el('div', { class: 'copy-block' }, el('pre', { tabindex: '0', class: 'command' }, el('code', { id: 'reproduce' }, visibleText(reproduceBlock(run.reproduce_line, commit, config.repository)))), button, ' ', el('span', { role: 'status', 'aria-live': 'polite', 'data-copy-status': '' })),
  ];
}

/** The run as its prerendered page shows it: the line, the raw file, the Reproduce block, the load points, the provenance. */
export function renderRun(config: LookupConfig, run: Row, points: readonly Row[]): HTMLElement {
  const hardware = config.hardware[String(run.hardware)] ?? String(run.hardware);
  const raw = rawResultUrl(config.repository, run.file);
  const file = el('code', {}, `results/${String(run.file)}`);
  const excluded = points.filter((p) => validityOf(p) !== 'valid');
  const exclusion = exclusionSummary(points.map(validityOf));
  const loadCell = (p: Row) => {
    const cell = el('td', { class: 'text' }, String(p.load));
    const validity = validityOf(p);
    if (validity !== 'valid') cell.append(' ', el('span', { class: 'badge', 'data-validity-badge': '', title: shown(p.validity_reason) }, VALIDITY_LABELS[validity]));
    else if (p.overloaded === true) cell.append(' ', el('span', { class: 'badge', title: shown(p.overload_reason) }, 'overloaded'));
    return cell;
  };
  return el('div', { 'data-run': String(run.run_id) },
    el('p', {}, `${shown(run.engine)} ${shown(run.engine_version)} · ${shown(run.model)} · ${hardware} · ${shown(run.workload)}`),
    el('p', { 'data-raw': '' }, 'Raw result: ', raw ? el('a', { href: raw }, file) : file, raw ? '' : ' (this build names no repository, so there is no link to the file)'),
    ...reproduceSection(config, run),
    el('h2', {}, 'Load points'),
    el('div', { class: 'table-wrap', tabindex: '0' },
      el('table', {},
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', class: 'text' }, 'Load'), ...POINT_COLUMNS.map(([, label]) => el('th', { scope: 'col' }, label)))),
        el('tbody', {}, ...points.map((p) => el('tr', { 'data-validity': validityOf(p) }, loadCell(p), ...POINT_COLUMNS.map(([key]) => el('td', { 'data-column': key }, pointCell(p, key)))))),
      ),
    ),
    ...(exclusion === null ? [] : [el('details', { 'data-excluded': '' }, el('summary', {}, `${exclusion} (greyed above: shown, never ranked, compared or used as a baseline)`),
      el('ul', {}, ...excluded.map((p) => el('li', {}, `${String(p.load)}: ${VALIDITY_LABELS[validityOf(p)]}, ${shown(p.validity_reason)}`))))]),
    el('h2', {}, 'Provenance'),
    el('table', { 'data-provenance': '' }, el('tbody', {}, ...PROVENANCE.map(([key, label]) => el('tr', { 'data-key': key }, el('th', { scope: 'row', class: 'text' }, label), el('td', { class: 'text', style: 'white-space: normal; word-break: break-all' }, el('code', {}, provenanceText(run, key, hardware))))))),
  );
}

/** Fills the page from ?id=: its prerendered page when it has one, else the run read from the Parquet files, else why not. */
export async function showRun(section: HTMLElement, config: LookupConfig): Promise<void> {
  const status = section.querySelector<HTMLElement>('[data-lookup-status]')!;
  const id = new URLSearchParams(location.search).get('id')?.trim() ?? '';
  if (id === '') {
    status.textContent = 'No run id given: open this page as /run/?id=<run id>.';
    return;
  }
  section.querySelector('h1')!.textContent = `Run ${id}`;
  document.title = `Run ${id} · servebench`;
  status.textContent = `Looking up run ${id} in the published data…`;
  try {
    const list = await fetch(config.prerenderedList).then((r) => (r.ok ? (r.json() as Promise<string[]>) : []));
    if (list.includes(id)) {
      location.replace(`${config.prerenderedPrefix}${id}/`);
      return;
    }
    const found = await readRun(config, id, (path) => bytesOf(config, path));
    if (found === null) {
      status.textContent = `No run ${id} in the published data.`;
      section.dataset.lookup = 'missing';
      return;
    }
    status.textContent = `Read from the published Parquet files: ${found.points.length} load point${found.points.length === 1 ? '' : 's'}.`;
    section.append(renderRun(config, found.run, found.points));
    section.dataset.lookup = 'found';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    section.dataset.lookup = 'error';
    // A file the reader cannot read (a codec it lacks, a truncated download): say so, and link the run's week files to read elsewhere.
    const week = weekOfRunId(id);
    status.textContent = `Could not read the published data: ${message}. `;
    const files = week === null ? [] : [config.runs[week], config.points[week]].filter((p): p is string => p !== undefined);
    status.append(files.length > 0 ? `The run's week, ${week}: ` : 'See the downloads.', ...files.flatMap((p, i) => [i > 0 ? ', ' : '', el('a', { href: `${config.data}${p}` }, p)]));
  }
}
