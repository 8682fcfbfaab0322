/**
 * Screenshots for a person to look at (STYLE.md: nothing cut or overlapping at 1280 and
 * 1920 px): taken only when PIPESCOPE_E2E_SHOTS names a folder, at each of SHOT_SIZES, then
 * the viewport the test had is restored. Never asserted on: the tests check the layout itself.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

export const SHOT_DIR = process.env.PIPESCOPE_E2E_SHOTS ?? '';
export const SHOT_SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

/** `<name>-<width>.png` at each size (when shots are asked for); `prepare` runs after each
 *  resize (e.g. to reopen a menu the resize closed). */
export async function shoot(
  page: Page,
  name: string,
  prepare: () => Promise<void> = async () => {},
): Promise<void> {
  if (!SHOT_DIR) return;
  mkdirSync(SHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  for (const size of SHOT_SIZES) {
    await page.setViewportSize(size);
    await prepare();
    // Two frames: the tab row re-fits after the resize, in a layout effect.
    await page.evaluate(
      'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))',
    );
    await page.screenshot({ path: path.join(SHOT_DIR, `${name}-${size.width}.png`) });
  }
  if (before) await page.setViewportSize(before);
}
