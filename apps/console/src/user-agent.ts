/**
 * A short, readable name for a User-Agent ("Firefox 140 on Linux"), for people scanning a session
 * list; the raw string stays one click away. Only the common browsers and systems are named: the
 * answer is a label, never used for a decision, so a guess that falls back to the product token
 * ("curl 8.5") or "Unknown client" is good enough.
 */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'Unknown client';
  const browser = browserOf(userAgent);
  const system = systemOf(userAgent);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? productOf(userAgent) ?? 'Unknown client';
}

// Order matters: Edge and Opera also say Chrome, Chrome also says Safari.
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\b(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)(?:\.\d+)*.*\bSafari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

function browserOf(userAgent: string): string | null {
  for (const [pattern, name] of BROWSERS) {
    const match = pattern.exec(userAgent);
    if (match) return `${name} ${match[1]}`;
  }
  return null;
}

function systemOf(userAgent: string): string | null {
  return SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
}

/** The first product token without the browser disguise: "curl/8.5.0" -> "curl 8.5.0". */
function productOf(userAgent: string): string | null {
  const match = /^([A-Za-z][\w.-]*)\/([\w.]+)/.exec(userAgent);
  if (!match || match[1] === 'Mozilla') return null;
  return `${match[1]} ${match[2]}`;
}
