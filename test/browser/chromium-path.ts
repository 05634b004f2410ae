/** Debian's chromium package; Playwright never downloads a browser here. */
export const CHROMIUM = '/usr/bin/chromium';
