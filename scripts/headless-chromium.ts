import chromiumBuild from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/**
 * A headless Chromium for the inspector's browser tests and the bench: always the build the
 * `@sparticuz/chromium` devDependency ships (unpacked once into the system's temp folder on
 * first use; it needs only libc, libexpat and libgcc from the system), never the system's
 * browser, so every machine runs the same one. Driven through `playwright-core`.
 */
export async function launchHeadlessChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumBuild.executablePath(),
    args: ['--headless', '--no-sandbox', '--no-zygote', '--disable-background-networking'],
  });
}
