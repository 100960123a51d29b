/**
 * The home page's filter: the selects choose a configuration and a load point, the state goes
 * into the URL (a shared link opens the same view), and the prerendered blocks are shown or
 * hidden. Text only: option labels are data, never markup.
 */
import { FILTER_FIELDS, parseHomeState, pickConfiguration, serializeHomeState, type ConfigurationChoice, type FilterField, type HomeState } from './home-state.ts';

export function enhanceHomePage(doc: Document, win: Window): void {
  const form = doc.querySelector<HTMLFormElement>('form[data-home-filter]');
  const data = doc.getElementById('home-scenarios');
  if (!form || !data) return;
  const all = JSON.parse(data.textContent ?? '[]') as ConfigurationChoice[];
  const shown = doc.querySelector<HTMLElement>('section[data-config]:not([hidden])');
  const initial = all.find((c) => c.id === shown?.dataset.config);
  if (!initial) return;
  let state: HomeState = parseHomeState(win.location.search, all, { id: initial.id, load: initial.loads[initial.loads.length - 1] ?? '' });
  const select = (field: FilterField | 'load') => form.querySelector<HTMLSelectElement>(`select[data-field="${field}"]`)!;

  const render = (push: boolean) => {
    const chosen = all.find((c) => c.id === state.id)!;
    for (const f of FILTER_FIELDS) select(f).value = chosen[f];
    const loads = select('load');
    loads.replaceChildren(
      ...chosen.loads.map((load) => {
        const option = doc.createElement('option');
        option.value = load;
        option.textContent = load;
        return option;
      }),
    );
    loads.value = state.load;
    for (const section of doc.querySelectorAll<HTMLElement>('section[data-config]')) {
      section.hidden = section.dataset.config !== state.id;
      if (section.hidden) continue;
      for (const block of section.querySelectorAll<HTMLElement>('[data-config-load]')) block.hidden = block.dataset.configLoad !== state.load;
    }
    if (push) {
      const keep = new URLSearchParams(win.location.search);
      for (const f of [...FILTER_FIELDS, 'load']) keep.delete(f);
      win.history.replaceState(null, '', `${win.location.pathname}${serializeHomeState(state, all, keep.toString())}`);
    }
  };

  form.addEventListener('change', (event) => {
    const field = (event.target as HTMLSelectElement).dataset.field as FilterField | 'load' | undefined;
    if (!field) return;
    if (field === 'load') state = { ...state, load: select('load').value };
    else {
      const wanted = Object.fromEntries(FILTER_FIELDS.map((f) => [f, select(f).value])) as Record<FilterField, string>;
      const next = pickConfiguration(all, wanted, field);
      if (next) state = { id: next.id, load: next.loads.includes(state.load) ? state.load : (next.loads[next.loads.length - 1] ?? '') };
    }
    render(true);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  render(false);
}
