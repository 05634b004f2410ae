import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { mintToken } from '../support/gateway';
import type { TokenClaims } from '../support/gateway';

import { CHROMIUM } from './chromium-path';

export { CHROMIUM };

/**
 * Where screenshots go: an ignored folder, so a test run never rewrites tracked files. The
 * pictures in docs/console are updated on purpose: `UPDATE_DOCS_SCREENSHOTS=1 npm run
 * test:browser` writes there instead.
 */
export const SCREENSHOTS = path.resolve(
  __dirname,
  process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? '../../docs/console' : '../../.data/screenshots',
);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy violations and page errors seen so far */
  problems: string[];
}

/** A fresh browser context (own storage) signed in through the URL fragment, as console-url prints it. */
export async function signIn(
  browser: Browser,
  baseUrl: string,
  who: TokenClaims,
  screen = 'catalog',
): Promise<SignedIn> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text()))
      problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  const token = await mintToken({ ...who, expiresIn: who.expiresIn ?? '30m' });
  await page.goto(`${baseUrl}/console/#token=${token}`);
  await page.getByTestId('who').waitFor();
  if (screen !== 'catalog') await page.goto(`${baseUrl}/console/#/${screen}`);
  return { context, page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });
}
