/** A real headless Chromium from npm packages alone (no download at run time). */
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';

export const launchBrowser = async (): Promise<Browser> =>
  playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
