// Preloaded into a measured process (`node --import`): writes its peak RSS in MB to $PEAK_RSS_OUT at exit.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const out = process.env.PEAK_RSS_OUT;
  // maxRSS is in kilobytes.
  if (out) writeFileSync(out, String(process.resourceUsage().maxRSS / 1024));
});
