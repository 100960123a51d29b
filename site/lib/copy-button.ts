/**
 * A Copy button beside a command block (`<button data-copy="<id of the code element>">` with a
 * `[data-copy-status]` next to it): the clipboard where the page may write it, else the text
 * selected for the reader to copy. One behaviour for the prerendered run pages and the lookup page.
 */
export function wireCopyButton(button: HTMLButtonElement): void {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy!);
    const status = button.parentElement?.querySelector<HTMLElement>('[data-copy-status]');
    try {
      await navigator.clipboard.writeText(target?.textContent ?? '');
      if (status) status.textContent = 'Copied.';
    } catch {
      // No clipboard (an insecure origin, a denied permission): select the text for the reader to copy.
      if (target) {
        const range = document.createRange();
        range.selectNodeContents(target);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
      if (status) status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
}
