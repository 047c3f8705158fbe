// Small progressive enhancements; every page works without this file.

// Copy buttons: <button data-copy="element-id">.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  try {
    // One value per line, without the page's indentation (a list of recovery codes).
    const text = source.textContent
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join('\n');
    await navigator.clipboard.writeText(text);
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  } catch {
    window.getSelection().selectAllChildren(source);
  }
});

// Copy buttons are hidden until the script runs: without it, the value is selected by hand.
for (const button of document.querySelectorAll('[data-copy]')) button.hidden = false;

// A new account's time zone: the browser's, where the list has it (the server's TIMEZONE otherwise).
for (const select of document.querySelectorAll('select[data-guess-timezone]')) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && [...select.options].some((option) => option.value === zone)) select.value = zone;
}
