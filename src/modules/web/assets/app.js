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

// A poster or picture that fails to load (TMDB out of reach, a path gone): the stand-in a movie without
// one gets (data-fallback: its classes, data-initial: its letter), not the browser's broken image.
const standIn = (image) => {
  const fallback = document.createElement('span');
  fallback.className = image.dataset.fallback;
  fallback.setAttribute('aria-hidden', 'true');
  const initial = image.dataset.initial ?? '';
  if (fallback.classList.contains('poster-fallback')) {
    const letter = document.createElement('span');
    letter.className = 'poster-initial';
    letter.textContent = initial;
    fallback.append(letter);
  } else {
    fallback.textContent = initial;
  }
  image.replaceWith(fallback);
};
document.addEventListener(
  'error',
  (event) => {
    if (event.target instanceof HTMLImageElement && event.target.dataset.fallback) standIn(event.target);
  },
  true,
);
// Those that failed before this script ran.
for (const image of document.querySelectorAll('img[data-fallback]')) {
  if (image.complete && image.naturalWidth === 0) standIn(image);
}

// A tags field (names separated by commas, `data-tags`): its suggestions complete the name being
// typed, keeping those before it (a datalist alone only offers whole values). Without JavaScript the
// list offers one tag.
for (const field of document.querySelectorAll('input[data-tags]')) {
  const list = field.list;
  if (!list) continue;
  const tags = [...list.options].map((option) => option.value);
  const offer = () => {
    const done = field.value.includes(',')
      ? `${field.value.slice(0, field.value.lastIndexOf(',') + 1)} `
      : '';
    const taken = new Set(done.split(',').map((tag) => tag.trim().toLowerCase()));
    list.replaceChildren(
      ...tags
        .filter((tag) => !taken.has(tag.toLowerCase()))
        .map((tag) => Object.assign(document.createElement('option'), { value: `${done}${tag}` })),
    );
  };
  field.addEventListener('input', offer);
  offer();
}
