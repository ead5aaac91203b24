import { useEffect, useState } from 'preact/hooks';

/** Routes live in the fragment (#/projects/...), so every console URL is the one page /console. */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function navigate(hash: string): void {
  location.hash = hash;
}
