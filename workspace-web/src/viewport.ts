// Keeps the app exactly as tall as the visible viewport, so the on-screen keyboard never covers the composer (iOS
// Safari does not resize the layout viewport; Chrome on Android does with interactive-widget=resizes-content).
export function trackViewport() {
  const vv = window.visualViewport;
  if (!vv) return;
  const set = () => {
    document.documentElement.style.setProperty('--app-height', `${Math.round(vv.height)}px`);
    if (vv.offsetTop > 0) window.scrollTo(0, 0);
  };
  vv.addEventListener('resize', set);
  vv.addEventListener('scroll', set);
  set();
}
