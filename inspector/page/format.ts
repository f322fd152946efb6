/** Times, durations and ids, formatted for reading. */

export const shortId = (id: string | undefined, n = 8): string =>
  !id ? '—' : id.length > n + 1 ? `${id.slice(0, n)}…` : id;

/** A duration in ms: `850 ms`, `4.2 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`. */
export function duration(ms: number): string {
  const a = Math.abs(ms);
  if (a < 1000) return `${Math.round(a)} ms`;
  if (a < 60_000) return `${a < 10_000 ? (Math.floor(a / 100) / 10).toFixed(1) : Math.floor(a / 1000)} s`;
  if (a < 3_600_000) {
    const m = Math.floor(a / 60_000);
    const s = Math.floor((a % 60_000) / 1000);
    return s ? `${m} min ${s} s` : `${m} min`;
  }
  if (a < 86_400_000) {
    const h = Math.floor(a / 3_600_000);
    const m = Math.floor((a % 3_600_000) / 60_000);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(a / 86_400_000);
  const h = Math.floor((a % 86_400_000) / 3_600_000);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** `3 min ago`, `in 2 h` (relative to now). */
export function relative(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = t - now;
  if (Math.abs(d) < 1000) return 'now';
  return d < 0 ? `${duration(d)} ago` : `in ${duration(d)}`;
}

/** A timestamp in local time with milliseconds: `2026-12-05 13:20:01.123`. */
export function stamp(iso: string | undefined): string {
  if (!iso) return '—';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())} ${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}.${p(t.getMilliseconds(), 3)}`;
}

/** `+1.2 s` between two timestamps. */
export function delta(prev: string | undefined, at: string): string {
  if (!prev) return '';
  const d = Date.parse(at) - Date.parse(prev);
  return Number.isNaN(d) ? '' : `+${duration(d)}`;
}

export const clip = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
